/* A tiny BLAS-like kernel library (column-major), built as a shared library
 * on its own, without the profiler's compiler launcher. */
#ifndef BLK_H
#define BLK_H

int blk_idamax(int n, const double *x, int incx);
void blk_dswap(int n, double *x, int incx, double *y, int incy);
void blk_dscal(int n, double alpha, double *x, int incx);
void blk_dger(int m, int n, double alpha, const double *x, int incx, const double *y,
              int incy, double *a, int lda);
void blk_dtrsm_llnu(int m, int n, const double *a, int lda, double *b, int ldb);
void blk_dgemm_nn(int m, int n, int k, double alpha, const double *a, int lda,
                  const double *b, int ldb, double beta, double *c, int ldc);

#endif
