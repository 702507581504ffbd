/* mgopaque: relaxation methods, called through RelaxMethod function
 * pointers with their per-level data as void *. */
#include <stdlib.h>

#include "mg_impl.h"

typedef struct JacobiData {
  double weight;
  double *diag_inv;
  Vector *tmp;
} JacobiData;

typedef struct GSData {
  double *diag_inv;
  int *diag_pos; /* position of the diagonal in each row */
} GSData;

static double *inverse_diagonal(const Matrix *A, int **diag_pos) {
  double *d = malloc(sizeof(double) * (size_t)A->nrows);
  int *pos = diag_pos ? malloc(sizeof(int) * (size_t)A->nrows) : NULL;
  for (int i = 0; i < A->nrows; i++) {
    d[i] = 1.0;
    for (int k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (A->colind[k] == i) {
        d[i] = 1.0 / A->values[k];
        if (pos)
          pos[i] = k;
      }
  }
  if (diag_pos)
    *diag_pos = pos;
  return d;
}

static void *jacobi_create(const Matrix *A, double weight) {
  JacobiData *d = malloc(sizeof(JacobiData));
  d->weight = weight;
  d->diag_inv = inverse_diagonal(A, NULL);
  d->tmp = VectorCreate(A->nrows);
  return d;
}

static int jacobi_relax(void *relax_data, const Matrix *A, const Vector *b, Vector *x,
                        int sweeps) {
  JacobiData *d = relax_data;
  const int *rp = A->rowptr, *ci = A->colind;
  const double *va = A->values, *bd = b->data;
  for (int sw = 0; sw < sweeps; sw++) {
    double *xd = x->data, *td = d->tmp->data;
    for (int i = 0; i < A->nrows; i++) {
      double r = bd[i];
      for (int k = rp[i]; k < rp[i + 1]; k++)
        r -= va[k] * xd[ci[k]];
      td[i] = xd[i] + d->weight * d->diag_inv[i] * r;
    }
    for (int i = 0; i < A->nrows; i++)
      xd[i] = td[i];
  }
  return 0;
}

static void jacobi_destroy(void *relax_data) {
  JacobiData *d = relax_data;
  free(d->diag_inv);
  VectorDestroy(d->tmp);
  free(d);
}

static void *gs_create(const Matrix *A, double weight) {
  (void)weight;
  GSData *d = malloc(sizeof(GSData));
  d->diag_inv = inverse_diagonal(A, &d->diag_pos);
  return d;
}

static void gs_forward(const GSData *d, const Matrix *A, const Vector *b, Vector *x) {
  const int *rp = A->rowptr, *ci = A->colind;
  const double *va = A->values, *bd = b->data;
  double *xd = x->data;
  for (int i = 0; i < A->nrows; i++) {
    double r = bd[i];
    for (int k = rp[i]; k < rp[i + 1]; k++)
      r -= va[k] * xd[ci[k]];
    xd[i] += d->diag_inv[i] * r;
  }
}

static void gs_backward(const GSData *d, const Matrix *A, const Vector *b, Vector *x) {
  const int *rp = A->rowptr, *ci = A->colind;
  const double *va = A->values, *bd = b->data;
  double *xd = x->data;
  for (int i = A->nrows - 1; i >= 0; i--) {
    double r = bd[i];
    for (int k = rp[i]; k < rp[i + 1]; k++)
      r -= va[k] * xd[ci[k]];
    xd[i] += d->diag_inv[i] * r;
  }
}

static int gs_relax(void *relax_data, const Matrix *A, const Vector *b, Vector *x, int sweeps) {
  for (int sw = 0; sw < sweeps; sw++)
    gs_forward(relax_data, A, b, x);
  return 0;
}

static int sgs_relax(void *relax_data, const Matrix *A, const Vector *b, Vector *x, int sweeps) {
  for (int sw = 0; sw < sweeps; sw++) {
    gs_forward(relax_data, A, b, x);
    gs_backward(relax_data, A, b, x);
  }
  return 0;
}

static void gs_destroy(void *relax_data) {
  GSData *d = relax_data;
  free(d->diag_inv);
  free(d->diag_pos);
  free(d);
}

const RelaxMethod mg_relax_jacobi = {"weighted Jacobi", jacobi_create, jacobi_relax,
                                     jacobi_destroy};
const RelaxMethod mg_relax_gs = {"Gauss-Seidel", gs_create, gs_relax, gs_destroy};
const RelaxMethod mg_relax_sgs = {"symmetric Gauss-Seidel", gs_create, sgs_relax, gs_destroy};
