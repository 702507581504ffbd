/* cgfiles: the CG kernels, in their own translation unit. Each writes only
 * some fields of the solver it is handed: cg_spmv the array q points to,
 * cg_update those of x and r, cg_direction that of p; none writes the
 * statistics. */
#include "cg.h"

void spmv(const Csr *A, const double *p, double *q) {
  for (int i = 0; i < A->n; i++) {
    double sum = 0.0;
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      sum += A->val[k] * p[A->col[k]];
    q[i] = sum;
  }
}

double dot(int n, const double *a, const double *b) {
  double sum = 0.0;
  for (int i = 0; i < n; i++)
    sum += a[i] * b[i];
  return sum;
}

void cg_spmv(Solver *s) {
  spmv(&s->A, s->p, s->q);
}

void cg_update(Solver *s) {
  int n = s->A.n;
  double alpha = s->alpha;
  for (int i = 0; i < n; i++) {
    s->x[i] += alpha * s->p[i];
    s->r[i] -= alpha * s->q[i];
  }
}

void cg_direction(Solver *s, double beta) {
  int n = s->A.n;
  for (int i = 0; i < n; i++)
    s->p[i] = s->r[i] + beta * s->p[i];
}
