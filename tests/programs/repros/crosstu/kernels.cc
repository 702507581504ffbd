// A C++ kernel library built without blame cc: the caller's unit sees only
// the declarations (mangled names).
#include <vector>

void axpy(double a, const std::vector<double> &x, std::vector<double> &y) {
  for (std::size_t i = 0; i < y.size(); i++) y[i] += a * x[i] * x[i] / (1.0 + x[i]);
}

double dot(const std::vector<double> &u, const std::vector<double> &v) {
  double s = 0;
  for (std::size_t i = 0; i < u.size(); i++) s += u[i] * v[i];
  return s;
}
