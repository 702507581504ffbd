/* mgopaque: compressed-row matrices: products, transposes, the model
 * problem. */
#include <stdio.h>
#include <stdlib.h>

#include "linalg.h"

Matrix *MatrixCreate(int nrows, int ncols, int nnz) {
  Matrix *A = malloc(sizeof(Matrix));
  A->nrows = nrows;
  A->ncols = ncols;
  A->nnz = nnz;
  A->rowptr = calloc((size_t)nrows + 1, sizeof(int));
  A->colind = malloc(sizeof(int) * (size_t)(nnz > 0 ? nnz : 1));
  A->values = malloc(sizeof(double) * (size_t)(nnz > 0 ? nnz : 1));
  A->nx = A->ny = 0;
  if (!A->rowptr || !A->colind || !A->values) {
    fprintf(stderr, "mgopaque: cannot allocate a %d x %d matrix\n", nrows, ncols);
    exit(1);
  }
  return A;
}

void MatrixDestroy(Matrix *A) {
  if (A == NULL)
    return;
  free(A->rowptr);
  free(A->colind);
  free(A->values);
  free(A);
}

void MatrixMatvec(double alpha, const Matrix *A, const Vector *x, double beta, Vector *y) {
  const int *rp = A->rowptr, *ci = A->colind;
  const double *va = A->values, *xd = x->data;
  double *yd = y->data;
  for (int i = 0; i < A->nrows; i++) {
    double s = 0.0;
    for (int k = rp[i]; k < rp[i + 1]; k++)
      s += va[k] * xd[ci[k]];
    yd[i] = alpha * s + (beta == 0.0 ? 0.0 : beta * yd[i]);
  }
}

void MatrixMatvecT(double alpha, const Matrix *A, const Vector *x, double beta, Vector *y) {
  const int *rp = A->rowptr, *ci = A->colind;
  const double *va = A->values, *xd = x->data;
  double *yd = y->data;
  for (int j = 0; j < A->ncols; j++)
    yd[j] = beta == 0.0 ? 0.0 : beta * yd[j];
  for (int i = 0; i < A->nrows; i++) {
    const double xi = alpha * xd[i];
    for (int k = rp[i]; k < rp[i + 1]; k++)
      yd[ci[k]] += va[k] * xi;
  }
}

Matrix *MatrixTranspose(const Matrix *A) {
  Matrix *T = MatrixCreate(A->ncols, A->nrows, A->nnz);
  for (int k = 0; k < A->nnz; k++)
    T->rowptr[A->colind[k] + 1]++;
  for (int j = 0; j < A->ncols; j++)
    T->rowptr[j + 1] += T->rowptr[j];
  int *next = malloc(sizeof(int) * (size_t)(A->ncols + 1));
  for (int j = 0; j <= A->ncols; j++)
    next[j] = T->rowptr[j];
  for (int i = 0; i < A->nrows; i++)
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      int dst = next[A->colind[k]]++;
      T->colind[dst] = i;
      T->values[dst] = A->values[k];
    }
  free(next);
  return T;
}

/* C = A B with a dense marker per row of C (two passes: count, fill). */
Matrix *MatrixMultiply(const Matrix *A, const Matrix *B) {
  int *marker = malloc(sizeof(int) * (size_t)B->ncols);
  for (int j = 0; j < B->ncols; j++)
    marker[j] = -1;
  int nnz = 0;
  for (int i = 0; i < A->nrows; i++)
    for (int ka = A->rowptr[i]; ka < A->rowptr[i + 1]; ka++) {
      int r = A->colind[ka];
      for (int kb = B->rowptr[r]; kb < B->rowptr[r + 1]; kb++)
        if (marker[B->colind[kb]] != i) {
          marker[B->colind[kb]] = i;
          nnz++;
        }
    }
  Matrix *C = MatrixCreate(A->nrows, B->ncols, nnz);
  for (int j = 0; j < B->ncols; j++)
    marker[j] = -1;
  int pos = 0;
  for (int i = 0; i < A->nrows; i++) {
    int row_start = pos;
    C->rowptr[i] = pos;
    for (int ka = A->rowptr[i]; ka < A->rowptr[i + 1]; ka++) {
      int r = A->colind[ka];
      double a = A->values[ka];
      for (int kb = B->rowptr[r]; kb < B->rowptr[r + 1]; kb++) {
        int c = B->colind[kb];
        if (marker[c] < row_start) {
          marker[c] = pos;
          C->colind[pos] = c;
          C->values[pos] = a * B->values[kb];
          pos++;
        } else {
          C->values[marker[c]] += a * B->values[kb];
        }
      }
    }
  }
  C->rowptr[A->nrows] = pos;
  free(marker);
  return C;
}

Matrix *MatrixCreateDiffusion(int nx, int ny, double (*k)(double x, double y), double sigma) {
  const int n = nx * ny;
  Matrix *A = MatrixCreate(n, n, 5 * n);
  const double hx = 1.0 / (nx + 1), hy = 1.0 / (ny + 1);
  const double cx = 1.0 / (hx * hx), cy = 1.0 / (hy * hy);
  int pos = 0;
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      const int row = j * nx + i;
      const double x = (i + 1) * hx, y = (j + 1) * hy;
      /* conductivities on the four faces of the point's cell */
      const double kw = k(x - 0.5 * hx, y), ke = k(x + 0.5 * hx, y);
      const double ks = k(x, y - 0.5 * hy), kn = k(x, y + 0.5 * hy);
      A->rowptr[row] = pos;
      if (j > 0) {
        A->colind[pos] = row - nx;
        A->values[pos++] = -cy * ks;
      }
      if (i > 0) {
        A->colind[pos] = row - 1;
        A->values[pos++] = -cx * kw;
      }
      A->colind[pos] = row;
      A->values[pos++] = cx * (kw + ke) + cy * (ks + kn) + sigma;
      if (i < nx - 1) {
        A->colind[pos] = row + 1;
        A->values[pos++] = -cx * ke;
      }
      if (j < ny - 1) {
        A->colind[pos] = row + nx;
        A->values[pos++] = -cy * kn;
      }
    }
  A->rowptr[n] = pos;
  A->nnz = pos;
  A->nx = nx;
  A->ny = ny;
  return A;
}
