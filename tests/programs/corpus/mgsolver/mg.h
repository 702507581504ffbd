/* A small geometric multigrid library for the shifted 2-D Poisson problem
 * (shift*I - Laplacian) x = b on the unit square, written the way solver
 * libraries are: the solver object carries its data as `void *` and its
 * operations as function pointers, set up by mg_create/mg_setup. */
#ifndef MG_H
#define MG_H

/* A grid function: n x n points including the boundary, row-major. */
typedef struct Vec {
  int n;
  double *data;
} Vec;

/* The data of one level of the hierarchy. */
typedef struct Level {
  int n;
  double h2inv;
  double shift;
  Vec *x; /* the level's iterate (the caller's x on level 0) */
  Vec *b; /* its right-hand side (the caller's b on level 0) */
  Vec *r; /* its residual */
} Level;

/* The multigrid cycle's data: what `solve_data` points to. */
typedef struct MGData {
  int nlevels;
  Level **levels;
  int coarse_sweeps;
} MGData;

/* The smoother's parameters: what `relax_data` points to. */
typedef struct RelaxData {
  int pre_sweeps;
  int post_sweeps;
  double omega;
} RelaxData;

typedef struct Solver {
  void *relax_data;
  void *solve_data;
  int (*relax)(void *relax_data, Level *lev, int sweeps);
  int (*solve)(void *solver, Vec *b, Vec *x);
  double tol;
  int max_iter;
  int num_iter;
  double res_norm;
} Solver;

Vec *vec_create(int n);
void vec_destroy(Vec *v);
Solver *mg_create(int n, double shift, double tol, int max_iter);
int mg_setup(Solver *s, Vec *b, Vec *x);
void mg_destroy(Solver *s);

#endif
