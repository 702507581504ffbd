/* nvector_par.c: MPI-distributed vectors. Each rank holds a contiguous
 * slice; reductions are local sums completed by MPI_Allreduce over the
 * vector's communicator. */
#include <math.h>
#include <stdlib.h>
#include "nvector.h"

typedef struct {
  long local_length;
  long global_length;
  double *data;
  MPI_Comm comm;
} N_VectorContent_Parallel;

#define NV_CONTENT_P(v) ((N_VectorContent_Parallel *)((v)->content))
#define NV_LOCLENGTH_P(v) (NV_CONTENT_P(v)->local_length)
#define NV_GLOBLENGTH_P(v) (NV_CONTENT_P(v)->global_length)
#define NV_DATA_P(v) (NV_CONTENT_P(v)->data)
#define NV_COMM_P(v) (NV_CONTENT_P(v)->comm)

static N_Vector par_create(MPI_Comm comm, long n_local, long n_global);

static N_Vector par_clone(N_Vector w) {
  return par_create(NV_COMM_P(w), NV_LOCLENGTH_P(w), NV_GLOBLENGTH_P(w));
}

static void par_destroy(N_Vector v) {
  free(NV_DATA_P(v));
  free(v->content);
  free(v);
}

static double *par_array_pointer(N_Vector v) { return NV_DATA_P(v); }

static void par_linear_sum(double a, N_Vector x, double b, N_Vector y,
                           N_Vector z) {
  long n = NV_LOCLENGTH_P(x);
  const double *xd = NV_DATA_P(x), *yd = NV_DATA_P(y);
  double *zd = NV_DATA_P(z);
  for (long i = 0; i < n; i++)
    zd[i] = a * xd[i] + b * yd[i];
}

static void par_constant(double c, N_Vector z) {
  long n = NV_LOCLENGTH_P(z);
  double *zd = NV_DATA_P(z);
  for (long i = 0; i < n; i++)
    zd[i] = c;
}

static void par_prod(N_Vector x, N_Vector y, N_Vector z) {
  long n = NV_LOCLENGTH_P(x);
  const double *xd = NV_DATA_P(x), *yd = NV_DATA_P(y);
  double *zd = NV_DATA_P(z);
  for (long i = 0; i < n; i++)
    zd[i] = xd[i] * yd[i];
}

static void par_inv(N_Vector x, N_Vector z) {
  long n = NV_LOCLENGTH_P(x);
  const double *xd = NV_DATA_P(x);
  double *zd = NV_DATA_P(z);
  for (long i = 0; i < n; i++)
    zd[i] = 1.0 / xd[i];
}

static void par_scale(double c, N_Vector x, N_Vector z) {
  long n = NV_LOCLENGTH_P(x);
  const double *xd = NV_DATA_P(x);
  double *zd = NV_DATA_P(z);
  for (long i = 0; i < n; i++)
    zd[i] = c * xd[i];
}

static double par_allreduce(double local, MPI_Op op, MPI_Comm comm) {
  double global = 0.0;
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, op, comm);
  return global;
}

static double par_dot(N_Vector x, N_Vector y) {
  long n = NV_LOCLENGTH_P(x);
  const double *xd = NV_DATA_P(x), *yd = NV_DATA_P(y);
  double sum = 0.0;
  for (long i = 0; i < n; i++)
    sum += xd[i] * yd[i];
  return par_allreduce(sum, MPI_SUM, NV_COMM_P(x));
}

static double par_wrms_norm(N_Vector x, N_Vector w) {
  long n = NV_LOCLENGTH_P(x);
  const double *xd = NV_DATA_P(x), *wd = NV_DATA_P(w);
  double sum = 0.0;
  for (long i = 0; i < n; i++)
    sum += (xd[i] * wd[i]) * (xd[i] * wd[i]);
  sum = par_allreduce(sum, MPI_SUM, NV_COMM_P(x));
  return sqrt(sum / (double)NV_GLOBLENGTH_P(x));
}

static double par_max_norm(N_Vector x) {
  long n = NV_LOCLENGTH_P(x);
  const double *xd = NV_DATA_P(x);
  double m = 0.0;
  for (long i = 0; i < n; i++)
    m = fmax(m, fabs(xd[i]));
  return par_allreduce(m, MPI_MAX, NV_COMM_P(x));
}

/* z = sum_j c[j] X[j], a pass over z per vector */
static void par_linear_combination(int nvec, const double *c, N_Vector *X,
                                   N_Vector z) {
  long n = NV_LOCLENGTH_P(z);
  double *zd = NV_DATA_P(z);
  if (X[0] != z || c[0] != 1.0)
    par_scale(c[0], X[0], z);
  for (int j = 1; j < nvec; j++) {
    const double *xd = NV_DATA_P(X[j]);
    for (long i = 0; i < n; i++)
      zd[i] += c[j] * xd[i];
  }
}

/* dots[j] = x . Y[j]: the local sums, then one MPI_Allreduce for all */
static void par_dot_multi(int nvec, N_Vector x, N_Vector *Y, double *dots) {
  long n = NV_LOCLENGTH_P(x);
  const double *xd = NV_DATA_P(x);
  for (int j = 0; j < nvec; j++) {
    const double *yd = NV_DATA_P(Y[j]);
    double sum = 0.0;
    for (long i = 0; i < n; i++)
      sum += xd[i] * yd[i];
    dots[j] = sum;
  }
  MPI_Allreduce(MPI_IN_PLACE, dots, nvec, MPI_DOUBLE, MPI_SUM, NV_COMM_P(x));
}

static const NVectorOps par_ops = {
    par_clone,     par_destroy,  par_array_pointer,      par_linear_sum,
    par_constant,  par_prod,     par_inv,                par_scale,
    par_dot,       par_wrms_norm, par_max_norm,          par_linear_combination,
    par_dot_multi,
};

static N_Vector par_create(MPI_Comm comm, long n_local, long n_global) {
  N_Vector v = malloc(sizeof *v);
  N_VectorContent_Parallel *c = malloc(sizeof *c);
  double *d = calloc((size_t)(n_local > 0 ? n_local : 1), sizeof(double));
  if (v == NULL || c == NULL || d == NULL) {
    free(d), free(c), free(v);
    return NULL;
  }
  *c = (N_VectorContent_Parallel){n_local, n_global, d, comm};
  v->content = c;
  v->ops = &par_ops;
  return v;
}

N_Vector N_VNew_Parallel(MPI_Comm comm, long n_local) {
  long n_global = 0;
  MPI_Allreduce(&n_local, &n_global, 1, MPI_LONG, MPI_SUM, comm);
  return par_create(comm, n_local, n_global);
}
