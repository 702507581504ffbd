/* mgopaque: vectors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linalg.h"

Vector *VectorCreate(int size) {
  Vector *v = malloc(sizeof(Vector));
  v->size = size;
  v->data = calloc((size_t)size, sizeof(double));
  if (v->data == NULL) {
    fprintf(stderr, "mgopaque: cannot allocate a vector of %d\n", size);
    exit(1);
  }
  return v;
}

void VectorDestroy(Vector *v) {
  if (v == NULL)
    return;
  free(v->data);
  free(v);
}

void VectorSetConstant(Vector *v, double value) {
  for (int i = 0; i < v->size; i++)
    v->data[i] = value;
}

void VectorCopy(const Vector *src, Vector *dst) {
  memcpy(dst->data, src->data, sizeof(double) * (size_t)src->size);
}

void VectorAxpy(double alpha, const Vector *x, Vector *y) {
  const double *xd = x->data;
  double *yd = y->data;
  for (int i = 0; i < x->size; i++)
    yd[i] += alpha * xd[i];
}

double VectorInnerProd(const Vector *x, const Vector *y) {
  double s = 0.0;
  for (int i = 0; i < x->size; i++)
    s += x->data[i] * y->data[i];
  return s;
}
