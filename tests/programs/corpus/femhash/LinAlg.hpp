// Vector kernels on std::vector<double>, inlined into the solver.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace fem {

inline double dot(const std::vector<double> &a, const std::vector<double> &b) {
  double s = 0.0;
  const std::size_t n = a.size();
  for (std::size_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

inline double norm2(const std::vector<double> &a) { return std::sqrt(dot(a, a)); }

// y += alpha * x
inline void axpy(double alpha, const std::vector<double> &x, std::vector<double> &y) {
  const std::size_t n = y.size();
  for (std::size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
}

// y = x + beta * y
inline void xpay(const std::vector<double> &x, double beta, std::vector<double> &y) {
  const std::size_t n = y.size();
  for (std::size_t i = 0; i < n; ++i) y[i] = x[i] + beta * y[i];
}

// |a - b| / |a|
inline double relative_change(const std::vector<double> &a, const std::vector<double> &b) {
  double d = 0.0, s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d += (a[i] - b[i]) * (a[i] - b[i]);
    s += a[i] * a[i];
  }
  return s > 0.0 ? std::sqrt(d / s) : 0.0;
}

}  // namespace fem
