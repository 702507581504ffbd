/* mgopaque: the public vector and sparse-matrix types of the library. */
#ifndef MGOPAQUE_LINALG_H
#define MGOPAQUE_LINALG_H

typedef struct Vector {
  int size;
  double *data;
} Vector;

/* Compressed sparse rows. Matrices built on a grid remember its shape so the
 * solver can coarsen geometrically. */
typedef struct Matrix {
  int nrows, ncols, nnz;
  int *rowptr;
  int *colind;
  double *values;
  int nx, ny; /* grid of the rows, 0 when unknown */
} Matrix;

Vector *VectorCreate(int size);
void VectorDestroy(Vector *v);
void VectorSetConstant(Vector *v, double value);
void VectorCopy(const Vector *src, Vector *dst);
void VectorAxpy(double alpha, const Vector *x, Vector *y);
double VectorInnerProd(const Vector *x, const Vector *y);

Matrix *MatrixCreate(int nrows, int ncols, int nnz);
void MatrixDestroy(Matrix *A);
/* y = alpha A x + beta y */
void MatrixMatvec(double alpha, const Matrix *A, const Vector *x, double beta, Vector *y);
/* y = alpha A^T x + beta y */
void MatrixMatvecT(double alpha, const Matrix *A, const Vector *x, double beta, Vector *y);
Matrix *MatrixTranspose(const Matrix *A);
Matrix *MatrixMultiply(const Matrix *A, const Matrix *B);

/* The five-point discretisation of -div(k grad u) + sigma u on the unit
 * square with nx x ny interior points and zero boundary values. */
Matrix *MatrixCreateDiffusion(int nx, int ny, double (*k)(double x, double y), double sigma);

#endif
