/* cgfiles: the 5-point Laplacian on an nx x nx grid and the vectors. */
#include <stdlib.h>
#include <time.h>

#include "cg.h"

double wall_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

void setup_poisson(Solver *s, int nx) {
  int n = nx * nx, k = 0;
  Csr *A = &s->A;
  A->n = n;
  A->rowptr = malloc((n + 1) * sizeof(int));
  A->col = malloc(5 * n * sizeof(int));
  A->val = malloc(5 * n * sizeof(double));
  for (int i = 0; i < nx; i++) {
    for (int j = 0; j < nx; j++) {
      int row = i * nx + j;
      A->rowptr[row] = k;
      if (i > 0) { A->col[k] = row - nx; A->val[k++] = -1.0; }
      if (j > 0) { A->col[k] = row - 1; A->val[k++] = -1.0; }
      A->col[k] = row; A->val[k++] = 4.0;
      if (j < nx - 1) { A->col[k] = row + 1; A->val[k++] = -1.0; }
      if (i < nx - 1) { A->col[k] = row + nx; A->val[k++] = -1.0; }
    }
  }
  A->rowptr[n] = k;
  A->nnz = k;
  s->x = calloc(n, sizeof(double));
  s->b = malloc(n * sizeof(double));
  s->r = malloc(n * sizeof(double));
  s->p = malloc(n * sizeof(double));
  s->q = calloc(n, sizeof(double));
  for (int i = 0; i < n; i++) {
    s->b[i] = 1.0 + (i % 7) * 0.01;
    s->r[i] = s->b[i];
    s->p[i] = s->b[i];
  }
  s->stats.iters = 0;
  s->stats.flops = 0;
  s->stats.t_spmv = 0.0;
  s->stats.t_total = 0.0;
}
