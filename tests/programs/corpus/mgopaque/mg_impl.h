/* mgopaque: what an MGSolver handle points to. Only the library's own files
 * include this header. */
#ifndef MGOPAQUE_MG_IMPL_H
#define MGOPAQUE_MG_IMPL_H

#include "linalg.h"
#include "mg.h"

/* A relaxation method: its data is created per level from the level's
 * matrix and passed back to it as void *. */
typedef struct RelaxMethod {
  const char *name;
  void *(*create)(const Matrix *A, double weight);
  int (*relax)(void *relax_data, const Matrix *A, const Vector *b, Vector *x, int sweeps);
  void (*destroy)(void *relax_data);
} RelaxMethod;

extern const RelaxMethod mg_relax_jacobi;
extern const RelaxMethod mg_relax_gs;
extern const RelaxMethod mg_relax_sgs;

typedef struct mg_solver_s {
  /* parameters */
  int max_levels;
  int max_iter;
  double tol;
  int relax_type;
  int num_sweeps_pre, num_sweeps_post, num_sweeps_coarse;
  double relax_weight;
  int min_coarse_size;
  int print_level;

  /* the hierarchy: level 0 holds the caller's matrix and vectors */
  int num_levels;
  Matrix **A_l;        /* operators, Galerkin products below level 0 */
  Matrix **P_l;        /* interpolation from level l+1 to level l */
  Matrix **R_l;        /* restriction from level l to level l+1 */
  Vector **x_l;        /* iterates (corrections below level 0) */
  Vector **b_l;        /* right-hand sides (restricted residuals below 0) */
  Vector **r_l;        /* residuals */
  void **relax_data_l; /* the relaxation's data of each level */
  const RelaxMethod *relax;

  /* results and statistics */
  int num_iterations;
  double rel_resid_norm;
  double *resid_norms; /* history of the last solve, max_iter + 1 */
  long num_cycles;
  double setup_time, solve_time;
  double *level_relax_time; /* per level */
} mg_solver;

/* mg_setup.c */
Matrix *mg_build_interpolation(int nxf, int nyf);

/* mg_solve.c */
void mg_residual(const Matrix *A, const Vector *b, const Vector *x, Vector *r);
void mg_vcycle(mg_solver *s, int level);

/* mg_create.c */
double mg_wtime(void);

#endif
