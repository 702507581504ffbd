/* The kernels: a damped Jacobi sweep and the residual norm, each an
 * OpenMP `parallel for` over rows (outlined regions) with `restrict`
 * arrays, and the source term. Arrays are (nx+2) x (ny+2) with a halo. */
#include "util.h"

#include <math.h>

#define AT(a, i, j) (a)[(size_t)(i) * (size_t)(ny + 2) + (size_t)(j)]

void jacobi_sweep(int nx, int ny, double *restrict unew, const double *restrict u,
                  const double *restrict f, double h2, double omega) {
#pragma omp parallel for schedule(static)
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++) {
      double jac = 0.25 * (AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) +
                           AT(u, i, j + 1) + h2 * AT(f, i, j));
      AT(unew, i, j) = (1.0 - omega) * AT(u, i, j) + omega * jac;
    }
}

double residual_norm(int nx, int ny, const double *restrict u, const double *restrict f, double h2) {
  double sum = 0.0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++) {
      double r = h2 * AT(f, i, j) + AT(u, i - 1, j) + AT(u, i + 1, j) + AT(u, i, j - 1) +
                 AT(u, i, j + 1) - 4.0 * AT(u, i, j);
      sum += r * r;
    }
  return sqrt(sum);
}

void set_source(int nx, int ny, double *f) {
  for (int i = 1; i <= nx; i++)
    for (int j = 1; j <= ny; j++)
      AT(f, i, j) = sin(3.0 * i / nx) * cos(2.0 * j / ny);
}
