/* mgopaque: creation, parameters, queries and destruction of the solver. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mg_impl.h"

double mg_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int MG_Create(MGSolver *solver) {
  mg_solver *s = calloc(1, sizeof(mg_solver));
  if (s == NULL)
    return 1;
  s->max_levels = 20;
  s->max_iter = 50;
  s->tol = 1e-8;
  s->relax_type = MG_RELAX_SGS;
  s->num_sweeps_pre = 1;
  s->num_sweeps_post = 1;
  s->num_sweeps_coarse = 30;
  s->relax_weight = 0.8;
  s->min_coarse_size = 9;
  s->print_level = 0;
  s->relax = &mg_relax_sgs;
  *solver = (MGSolver)s;
  return 0;
}

int MG_SetMaxLevels(MGSolver solver, int max_levels) {
  mg_solver *s = (mg_solver *)solver;
  if (max_levels < 1)
    return 1;
  s->max_levels = max_levels;
  return 0;
}

int MG_SetTol(MGSolver solver, double tol) {
  ((mg_solver *)solver)->tol = tol;
  return 0;
}

int MG_SetMaxIter(MGSolver solver, int max_iter) {
  ((mg_solver *)solver)->max_iter = max_iter;
  return 0;
}

int MG_SetRelaxType(MGSolver solver, int relax_type) {
  mg_solver *s = (mg_solver *)solver;
  switch (relax_type) {
  case MG_RELAX_JACOBI: s->relax = &mg_relax_jacobi; break;
  case MG_RELAX_GS: s->relax = &mg_relax_gs; break;
  case MG_RELAX_SGS: s->relax = &mg_relax_sgs; break;
  default: return 1;
  }
  s->relax_type = relax_type;
  return 0;
}

int MG_SetNumSweeps(MGSolver solver, int pre, int post) {
  mg_solver *s = (mg_solver *)solver;
  s->num_sweeps_pre = pre;
  s->num_sweeps_post = post;
  return 0;
}

int MG_SetPrintLevel(MGSolver solver, int level) {
  ((mg_solver *)solver)->print_level = level;
  return 0;
}

int MG_GetNumIterations(MGSolver solver, int *num_iterations) {
  *num_iterations = ((mg_solver *)solver)->num_iterations;
  return 0;
}

int MG_GetFinalRelativeResidualNorm(MGSolver solver, double *norm) {
  *norm = ((mg_solver *)solver)->rel_resid_norm;
  return 0;
}

int MG_GetNumLevels(MGSolver solver, int *num_levels) {
  *num_levels = ((mg_solver *)solver)->num_levels;
  return 0;
}

int MG_Destroy(MGSolver solver) {
  mg_solver *s = (mg_solver *)solver;
  if (s == NULL)
    return 0;
  if (s->print_level > 0) {
    printf("MG: %ld V-cycles; relaxation time per level:", s->num_cycles);
    for (int l = 0; l < s->num_levels; l++)
      printf(" %.3f", s->level_relax_time[l]);
    printf(" s\n");
  }
  for (int l = 0; l < s->num_levels; l++) {
    if (s->relax_data_l && s->relax_data_l[l])
      s->relax->destroy(s->relax_data_l[l]);
    if (l > 0) { /* level 0 belongs to the caller */
      MatrixDestroy(s->A_l[l]);
      VectorDestroy(s->x_l[l]);
      VectorDestroy(s->b_l[l]);
    }
    VectorDestroy(s->r_l[l]);
    if (l < s->num_levels - 1) {
      MatrixDestroy(s->P_l[l]);
      MatrixDestroy(s->R_l[l]);
    }
  }
  free(s->A_l);
  free(s->P_l);
  free(s->R_l);
  free(s->x_l);
  free(s->b_l);
  free(s->r_l);
  free(s->relax_data_l);
  free(s->resid_norms);
  free(s->level_relax_time);
  free(s);
  return 0;
}
