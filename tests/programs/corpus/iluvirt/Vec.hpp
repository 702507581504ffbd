// Vec.hpp: the BLAS-1 kernels the Krylov solver is made of, over
// std::vector<double>; header-only, so they inline into their callers.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace iv {

using Vector = std::vector<double>;

inline double dot(const Vector& a, const Vector& b) {
  double s = 0.0;
  const std::size_t n = a.size();
  for (std::size_t i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

inline double nrm2(const Vector& a) { return std::sqrt(dot(a, a)); }

// y += alpha * x
inline void axpy(double alpha, const Vector& x, Vector& y) {
  const std::size_t n = x.size();
  for (std::size_t i = 0; i < n; ++i)
    y[i] += alpha * x[i];
}

// x *= alpha
inline void scal(double alpha, Vector& x) {
  for (double& v : x)
    v *= alpha;
}

// y = x - y
inline void xmy(const Vector& x, Vector& y) {
  const std::size_t n = x.size();
  for (std::size_t i = 0; i < n; ++i)
    y[i] = x[i] - y[i];
}

}  // namespace iv
