// cgbench: the vector and matrix kernels.
#include <sys/time.h>

#include "SparseMatrix.hpp"

double mytimer() {
  struct timeval tp;
  gettimeofday(&tp, nullptr);
  return (double)tp.tv_sec + 1e-6 * (double)tp.tv_usec;
}

void zero_vector(Vector &v) {
  double *vv = v.data();
  const size_t n = v.size();
  for (size_t i = 0; i < n; i++)
    vv[i] = 0.0;
}

// result = x . y over all ranks; the time of the reduction is added to
// time_allreduce.
int dot(local_int_t n, const Vector &x, const Vector &y, double &result, double &time_allreduce) {
  const double *xv = x.data(), *yv = y.data();
  double local = 0.0;
  if (xv == yv) {
    for (local_int_t i = 0; i < n; i++)
      local += xv[i] * xv[i];
  } else {
    for (local_int_t i = 0; i < n; i++)
      local += xv[i] * yv[i];
  }
  double t0 = mytimer();
  double global = 0.0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  result = global;
  time_allreduce += mytimer() - t0;
  return 0;
}

// w = alpha x + beta y
int waxpby(local_int_t n, double alpha, const Vector &x, double beta, const Vector &y, Vector &w) {
  const double *xv = x.data(), *yv = y.data();
  double *wv = w.data();
  if (alpha == 1.0) {
    for (local_int_t i = 0; i < n; i++)
      wv[i] = xv[i] + beta * yv[i];
  } else if (beta == 1.0) {
    for (local_int_t i = 0; i < n; i++)
      wv[i] = alpha * xv[i] + yv[i];
  } else {
    for (local_int_t i = 0; i < n; i++)
      wv[i] = alpha * xv[i] + beta * yv[i];
  }
  return 0;
}

// y = A x (x's halo is refreshed first)
int spmv(const SparseMatrix &A, Vector &x, Vector &y) {
  exchange_halo(A, x);
  const double *xv = x.data();
  double *yv = y.data();
  const local_int_t *rowStart = A.rowStart.data();
  const local_int_t *col = A.colIndex.data();
  const double *val = A.values.data();
  const local_int_t nrow = A.localNumberOfRows;
  for (local_int_t i = 0; i < nrow; i++) {
    double sum = 0.0;
    for (local_int_t k = rowStart[i]; k < rowStart[i + 1]; k++)
      sum += val[k] * xv[col[k]];
    yv[i] = sum;
  }
  return 0;
}

// One symmetric Gauss-Seidel sweep (forward, then backward) for A x = r.
int symgs(const SparseMatrix &A, const Vector &r, Vector &x) {
  exchange_halo(A, x);
  const local_int_t nrow = A.localNumberOfRows;
  const double *rv = r.data();
  double *xv = x.data();
  const local_int_t *rowStart = A.rowStart.data();
  const local_int_t *col = A.colIndex.data();
  const local_int_t *diagIndex = A.diagIndex.data();
  const double *val = A.values.data();

  for (local_int_t i = 0; i < nrow; i++) {
    const double diag = val[diagIndex[i]];
    double sum = rv[i];
    for (local_int_t k = rowStart[i]; k < rowStart[i + 1]; k++)
      sum -= val[k] * xv[col[k]];
    sum += xv[i] * diag;
    xv[i] = sum / diag;
  }
  for (local_int_t i = nrow - 1; i >= 0; i--) {
    const double diag = val[diagIndex[i]];
    double sum = rv[i];
    for (local_int_t k = rowStart[i]; k < rowStart[i + 1]; k++)
      sum -= val[k] * xv[col[k]];
    sum += xv[i] * diag;
    xv[i] = sum / diag;
  }
  return 0;
}
