/* mgopaque: V-cycles until the relative residual is below the tolerance. */
#include <math.h>
#include <stdio.h>

#include "mg_impl.h"

/* r = b - A x */
void mg_residual(const Matrix *A, const Vector *b, const Vector *x, Vector *r) {
  const int *rp = A->rowptr, *ci = A->colind;
  const double *va = A->values, *xd = x->data, *bd = b->data;
  double *rd = r->data;
  for (int i = 0; i < A->nrows; i++) {
    double s = bd[i];
    for (int k = rp[i]; k < rp[i + 1]; k++)
      s -= va[k] * xd[ci[k]];
    rd[i] = s;
  }
}

static void relax_level(mg_solver *s, int level, int sweeps) {
  double t = mg_wtime();
  s->relax->relax(s->relax_data_l[level], s->A_l[level], s->b_l[level], s->x_l[level], sweeps);
  s->level_relax_time[level] += mg_wtime() - t;
}

void mg_vcycle(mg_solver *s, int level) {
  if (level == s->num_levels - 1) {
    relax_level(s, level, s->num_sweeps_coarse);
    return;
  }
  relax_level(s, level, s->num_sweeps_pre);
  mg_residual(s->A_l[level], s->b_l[level], s->x_l[level], s->r_l[level]);
  MatrixMatvec(1.0, s->R_l[level], s->r_l[level], 0.0, s->b_l[level + 1]);
  VectorSetConstant(s->x_l[level + 1], 0.0);
  mg_vcycle(s, level + 1);
  MatrixMatvec(1.0, s->P_l[level], s->x_l[level + 1], 1.0, s->x_l[level]);
  relax_level(s, level, s->num_sweeps_post);
}

int MG_Solve(MGSolver solver, Matrix *A, Vector *b, Vector *x) {
  mg_solver *s = (mg_solver *)solver;
  double t0 = mg_wtime();
  if (s->num_levels == 0 || A != s->A_l[0]) {
    fprintf(stderr, "MG_Solve: the solver is not set up for this matrix\n");
    return 1;
  }
  s->b_l[0] = b;
  s->x_l[0] = x;
  Vector *r = s->r_l[0];

  double bnorm = sqrt(VectorInnerProd(b, b));
  if (bnorm == 0.0)
    bnorm = 1.0;
  mg_residual(A, b, x, r);
  double rel = sqrt(VectorInnerProd(r, r)) / bnorm;
  s->resid_norms[0] = rel;
  int iter = 0;
  while (iter < s->max_iter && rel > s->tol) {
    mg_vcycle(s, 0);
    s->num_cycles++;
    iter++;
    mg_residual(A, b, x, r);
    rel = sqrt(VectorInnerProd(r, r)) / bnorm;
    s->resid_norms[iter] = rel;
    if (s->print_level > 1)
      printf("  MG iteration %2d  relative residual %.3e  factor %.3f\n", iter, rel,
             rel / s->resid_norms[iter - 1]);
  }
  s->num_iterations = iter;
  s->rel_resid_norm = rel;
  s->solve_time += mg_wtime() - t0;
  return rel > s->tol;
}
