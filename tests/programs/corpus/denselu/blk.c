/* Reference-style kernels: column-major, unit strides vectorized by the
 * compiler, the dgemm blocked over k so a block of A stays in cache. */
#include "blk.h"

#include <math.h>

int blk_idamax(int n, const double *x, int incx) {
  if (n <= 0)
    return -1;
  int best = 0;
  double big = fabs(x[0]);
  for (int i = 1; i < n; i++) {
    double v = fabs(x[(long)i * incx]);
    if (v > big) {
      big = v;
      best = i;
    }
  }
  return best;
}

void blk_dswap(int n, double *x, int incx, double *y, int incy) {
  for (int i = 0; i < n; i++) {
    double t = x[(long)i * incx];
    x[(long)i * incx] = y[(long)i * incy];
    y[(long)i * incy] = t;
  }
}

void blk_dscal(int n, double alpha, double *x, int incx) {
  for (int i = 0; i < n; i++)
    x[(long)i * incx] *= alpha;
}

/* A := A + alpha x y' */
void blk_dger(int m, int n, double alpha, const double *x, int incx, const double *y,
              int incy, double *a, int lda) {
  for (int j = 0; j < n; j++) {
    double t = alpha * y[(long)j * incy];
    if (t == 0.0)
      continue;
    double *col = a + (long)j * lda;
    for (int i = 0; i < m; i++)
      col[i] += t * x[(long)i * incx];
  }
}

/* B := inv(L) B with L the unit lower triangle of the m x m matrix a. */
void blk_dtrsm_llnu(int m, int n, const double *a, int lda, double *b, int ldb) {
  for (int j = 0; j < n; j++) {
    double *bj = b + (long)j * ldb;
    for (int k = 0; k < m; k++) {
      double t = bj[k];
      if (t == 0.0)
        continue;
      const double *ak = a + (long)k * lda;
      for (int i = k + 1; i < m; i++)
        bj[i] -= t * ak[i];
    }
  }
}

#define KB 128

/* C := alpha A B + beta C, A m x k, B k x n. */
void blk_dgemm_nn(int m, int n, int k, double alpha, const double *a, int lda,
                  const double *b, int ldb, double beta, double *c, int ldc) {
  if (beta != 1.0) {
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++)
        c[i + (long)j * ldc] = beta == 0.0 ? 0.0 : beta * c[i + (long)j * ldc];
  }
  for (int p0 = 0; p0 < k; p0 += KB) {
    int p1 = p0 + KB < k ? p0 + KB : k;
    for (int j = 0; j < n; j++) {
      double *cj = c + (long)j * ldc;
      const double *bj = b + (long)j * ldb;
      for (int p = p0; p < p1; p++) {
        double t = alpha * bj[p];
        const double *ap = a + (long)p * lda;
        for (int i = 0; i < m; i++)
          cj[i] += t * ap[i];
      }
    }
  }
}
