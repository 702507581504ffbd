/* nvector.h: a generic vector object. Solver code never touches vector
 * storage: every operation goes through the table of function pointers the
 * implementation installs (nvector_par.c: MPI-distributed vectors). */
#ifndef NKOPS_NVECTOR_H
#define NKOPS_NVECTOR_H

#include <mpi.h>

typedef struct _N_Vector *N_Vector;

typedef struct NVectorOps {
  N_Vector (*clone)(N_Vector);
  void (*destroy)(N_Vector);
  double *(*array_pointer)(N_Vector);
  void (*linear_sum)(double a, N_Vector x, double b, N_Vector y, N_Vector z);
  void (*constant)(double c, N_Vector z);
  void (*prod)(N_Vector x, N_Vector y, N_Vector z);
  void (*inv)(N_Vector x, N_Vector z);
  void (*scale)(double c, N_Vector x, N_Vector z);
  double (*dot)(N_Vector x, N_Vector y);
  double (*wrms_norm)(N_Vector x, N_Vector w);
  double (*max_norm)(N_Vector x);
  /* fused: z = sum_i c[i] X[i] (z may be X[0]); dots[i] = x . Y[i] */
  void (*linear_combination)(int nvec, const double *c, N_Vector *X, N_Vector z);
  void (*dot_multi)(int nvec, N_Vector x, N_Vector *Y, double *dots);
} NVectorOps;

struct _N_Vector {
  void *content;
  const NVectorOps *ops;
};

static inline N_Vector N_VClone(N_Vector w) { return w->ops->clone(w); }
static inline void N_VDestroy(N_Vector v) { if (v) v->ops->destroy(v); }
static inline double *N_VGetArrayPointer(N_Vector v) { return v->ops->array_pointer(v); }
/* z = a x + b y */
static inline void N_VLinearSum(double a, N_Vector x, double b, N_Vector y, N_Vector z) {
  z->ops->linear_sum(a, x, b, y, z);
}
static inline void N_VConst(double c, N_Vector z) { z->ops->constant(c, z); }
static inline void N_VProd(N_Vector x, N_Vector y, N_Vector z) { z->ops->prod(x, y, z); }
static inline void N_VInv(N_Vector x, N_Vector z) { z->ops->inv(x, z); }
static inline void N_VScale(double c, N_Vector x, N_Vector z) { z->ops->scale(c, x, z); }
static inline double N_VDotProd(N_Vector x, N_Vector y) { return x->ops->dot(x, y); }
static inline double N_VWrmsNorm(N_Vector x, N_Vector w) { return x->ops->wrms_norm(x, w); }
static inline double N_VMaxNorm(N_Vector x) { return x->ops->max_norm(x); }
static inline void N_VLinearCombination(int nvec, const double *c, N_Vector *X, N_Vector z) {
  z->ops->linear_combination(nvec, c, X, z);
}
static inline void N_VDotProdMulti(int nvec, N_Vector x, N_Vector *Y, double *dots) {
  x->ops->dot_multi(nvec, x, Y, dots);
}

/* nvector.c: generic operations, written on the table */
N_Vector *N_VCloneVectorArray(int count, N_Vector w);
void N_VDestroyVectorArray(N_Vector *vs, int count);
double N_VL2Norm(N_Vector x);

/* nvector_par.c */
N_Vector N_VNew_Parallel(MPI_Comm comm, long n_local);

#endif
