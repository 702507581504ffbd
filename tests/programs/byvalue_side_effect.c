/* A callee computes what its pointer parameter points to from a parameter
 * passed by value (axpy's y from a): the caller's call site names the
 * variable the value is read from (alpha), so that the side effect blames
 * x when alpha is blamed. An extern array declared without its definition
 * is typed from the IR (double []), not `void`. */
extern double grid[64][64];

void axpy(double *y, double a, const double *x, int n) {
  for (int i = 0; i < n; i++)
    y[i] += a * x[i];
}

double dot(const double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

void update(double *x, const double *p, int n) {
  double alpha = dot(p, p, n);
  axpy(x, -alpha, p, n);
  grid[0][0] = alpha;
}

/* A body cannot write through a pointer to const: the call to sum3 leaves
 * loc as it was, so out (copied from loc) is not computed by it. */
double sum3(const double *v) { return v[0] + v[1] + v[2]; }

void gather(double *out, const double *in, double *s) {
  double loc[3];
  loc[0] = in[0], loc[1] = in[1], loc[2] = in[2];
  *s = sum3(loc);
  out[0] = loc[0];
}
