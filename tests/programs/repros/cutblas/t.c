/* cutblas: an LU factorization and solve through LAPACKE and CBLAS
 * (OpenBLAS, no debug info, assembly kernels without frame pointers; its
 * own worker threads). Samples in the dgemm kernel unwind to garbage on
 * main's thread and on the workers: without completing those stacks with
 * main's call into the library, ~80% of the run reached no variable.
 * Expected: LU (factored in place by dgetrf: ~all of the run) first, the
 * copy A (filled by fill(), read by dgemv) low. */
#include <cblas.h>
#include <lapacke.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  int n;
  double *a;
} Matrix;

static void fill(Matrix *m, unsigned seed) {
  for (long i = 0; i < (long)m->n * m->n; i++) {
    seed = seed * 1103515245u + 12345u;
    m->a[i] = (seed >> 16) / 65536.0;
  }
  for (int i = 0; i < m->n; i++) m->a[(long)i * m->n + i] += m->n;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1500, reps = argc > 2 ? atoi(argv[2]) : 3;
  Matrix A = {n, malloc(sizeof(double) * n * n)}, LU = {n, malloc(sizeof(double) * n * n)};
  double *b = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
  int *ipiv = malloc(sizeof(int) * n);
  double rn = 0;
  for (int r = 0; r < reps; r++) {
    fill(&A, 7 + r);
    for (long i = 0; i < (long)n * n; i++) LU.a[i] = A.a[i];
    for (int i = 0; i < n; i++) x[i] = b[i] = 1.0 + i % 7;
    int info = LAPACKE_dgetrf(LAPACK_ROW_MAJOR, n, n, LU.a, n, ipiv);
    info |= LAPACKE_dgetrs(LAPACK_ROW_MAJOR, 'N', n, 1, LU.a, n, ipiv, x, 1);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0, A.a, n, x, 1, -1.0, b, 1);
    rn = cblas_dnrm2(n, b, 1);
    if (info) return 1;
  }
  printf("cutblas: residual %g\n", rn);
  return 0;
}
