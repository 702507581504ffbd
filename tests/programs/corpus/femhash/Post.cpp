#include "Post.hpp"

#include <algorithm>
#include <cmath>

#include "Assembly.hpp"
#include "LinAlg.hpp"

namespace fem {

std::vector<double> element_stresses(const Model &model, const std::vector<double> &u) {
  const int ne = model.mesh().num_elems();
  const double nu = model.material().poisson;
  std::vector<double> vm(ne);
  for (int e = 0; e < ne; ++e) {
    double eps[3], modulus;
    element_centre_strain(model, e, u, eps, modulus);
    const double c = modulus / (1.0 - nu * nu);
    const double sxx = c * (eps[0] + nu * eps[1]);
    const double syy = c * (nu * eps[0] + eps[1]);
    const double sxy = c * 0.5 * (1.0 - nu) * eps[2];
    vm[e] = std::sqrt(sxx * sxx - sxx * syy + syy * syy + 3.0 * sxy * sxy);
  }
  return vm;
}

Stats compute_stats(const std::vector<double> &values) {
  Stats s;
  if (values.empty()) return s;
  s.min = s.max = values.front();
  double sum = 0.0;
  for (double v : values) {
    s.min = std::min(s.min, v);
    s.max = std::max(s.max, v);
    sum += v;
  }
  s.count = static_cast<int>(values.size());
  s.mean = sum / s.count;
  return s;
}

double end_deflection(const Model &model, const std::vector<double> &u) {
  const std::vector<int> &edge = model.mesh().loaded_nodes();
  double sum = 0.0;
  for (int n : edge) sum += u[2 * n + 1];
  return sum / static_cast<double>(edge.size());
}

double residual_norm(const CsrMatrix &A, const std::vector<double> &b,
                     const std::vector<double> &x) {
  std::vector<double> ax;
  spmv(A, x, ax);
  double r2 = 0.0;
  for (int i = 0; i < A.n; ++i) r2 += (b[i] - ax[i]) * (b[i] - ax[i]);
  const double bn = norm2(b);
  return bn > 0.0 ? std::sqrt(r2) / bn : std::sqrt(r2);
}

}  // namespace fem
