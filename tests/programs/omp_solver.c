#include <stdio.h>
#include <stdlib.h>
/* an OpenMP solver: the sweeps run in parallel regions */
static void relax(double *u, const double *f, int n) {
#pragma omp parallel for
  for (int i = 1; i < n - 1; i++) u[i] = 0.5 * (u[i - 1] + u[i + 1]) + f[i];
}
static void rhs(double *f, int n, int k) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) f[i] = 1e-3 * (i % 7) + k;
}
int main(void) {
  int n = 2000000;
  double *u = calloc(n, sizeof *u), *f = calloc(n, sizeof *f);
  for (int k = 0; k < 40; k++) {
    rhs(f, n, k);
    for (int r = 0; r < 3; r++) relax(u, f, n);
  }
  printf("%f\n", u[n / 2]);
  return 0;
}
