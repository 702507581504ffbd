/* mpiwait: grid kernels shared by both components. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "coupler.h"

double wall_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

double *alloc_field(const Grid *g, double value) {
  size_t n = (size_t)g->nx * g->ny;
  double *q = malloc(sizeof(double) * n);
  if (q == NULL) {
    fprintf(stderr, "mpiwait: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t k = 0; k < n; k++)
    q[k] = value;
  return q;
}

/* First-order upwind transport of q by (u, v), periodic in x, walls in y. */
void advect_upwind(const Grid *g, const double *u, const double *v, const double *q,
                   double *qnew) {
  const double c = g->dt / g->dx;
  for (int j = 0; j < g->ny; j++) {
    const int jm = j > 0 ? j - 1 : j, jp = j < g->ny - 1 ? j + 1 : j;
    for (int i = 0; i < g->nx; i++) {
      const int im = i > 0 ? i - 1 : g->nx - 1, ip = i < g->nx - 1 ? i + 1 : 0;
      const size_t k = IDX(g, i, j);
      const double uk = u[k], vk = v[k];
      const double dqx = uk > 0.0 ? q[k] - q[IDX(g, im, j)] : q[IDX(g, ip, j)] - q[k];
      const double dqy = vk > 0.0 ? q[k] - q[IDX(g, i, jm)] : q[IDX(g, i, jp)] - q[k];
      qnew[k] = q[k] - c * (uk * dqx + vk * dqy);
    }
  }
}

/* qnew = q + alpha * (average of the four neighbours - q) */
void smooth5(const Grid *g, const double *q, double *qnew, double alpha) {
  for (int j = 0; j < g->ny; j++) {
    const int jm = j > 0 ? j - 1 : j, jp = j < g->ny - 1 ? j + 1 : j;
    for (int i = 0; i < g->nx; i++) {
      const int im = i > 0 ? i - 1 : g->nx - 1, ip = i < g->nx - 1 ? i + 1 : 0;
      const size_t k = IDX(g, i, j);
      const double avg =
          0.25 * (q[IDX(g, im, j)] + q[IDX(g, ip, j)] + q[IDX(g, i, jm)] + q[IDX(g, i, jp)]);
      qnew[k] = q[k] + alpha * (avg - q[k]);
    }
  }
}

double field_sum(const Grid *g, const double *q) {
  double s = 0.0;
  const size_t n = (size_t)g->nx * g->ny;
  for (size_t k = 0; k < n; k++)
    s += q[k];
  return s;
}
