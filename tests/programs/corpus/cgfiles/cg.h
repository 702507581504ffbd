/* cgfiles: the solver object shared by the three files of the program. */
#ifndef CGFILES_CG_H
#define CGFILES_CG_H

typedef struct {
  int n, nnz;
  int *rowptr, *col;
  double *val;
} Csr;

typedef struct {
  long iters;
  long flops;
  double t_spmv;
  double t_total;
} Stats;

typedef struct {
  Csr A;
  double *x, *b, *r, *p, *q;
  double rho, alpha;
  Stats stats;
} Solver;

/* setup.c */
void setup_poisson(Solver *s, int nx);
double wall_time(void);

/* kernels.c */
void spmv(const Csr *A, const double *p, double *q);
double dot(int n, const double *a, const double *b);
void cg_spmv(Solver *s);
void cg_update(Solver *s);
void cg_direction(Solver *s, double beta);

#endif
