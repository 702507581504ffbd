// CgSolver.cpp - unpreconditioned CG on the 5-point Laplacian.
#include "CgSolver.hpp"

#include <cmath>

#include "Parallel.hpp"

namespace lg {

CgSolver::CgSolver(int nx, int ny, double h, double tol, int max_iter)
    : nx_(nx), ny_(ny), inv_h2_(1.0 / (h * h)), tol_(tol), max_iter_(max_iter),
      r_("cg.r", nx + 2, ny + 2), d_("cg.d", nx + 2, ny + 2), q_("cg.q", nx + 2, ny + 2) {}

double CgSolver::dot(const View<double> &a, const View<double> &b) const {
  double sum = 0.0;
  parallel_reduce(
      "cg.dot", MDRange{1, nx_ + 1, 1, ny_ + 1},
      [=](int i, int j, double &acc) { acc += a(i, j) * b(i, j); }, sum);
  return sum;
}

// out = -lap(in) on the interior; the ghost cells of in are zero.
void CgSolver::apply(const View<double> &in, const View<double> &out) const {
  const double s = inv_h2_;
  parallel_for("cg.apply", MDRange{1, nx_ + 1, 1, ny_ + 1}, [=](int i, int j) {
    out(i, j) = s * (4.0 * in(i, j) - in(i - 1, j) - in(i + 1, j) - in(i, j - 1) -
                     in(i, j + 1));
  });
}

int CgSolver::solve(View<double> x, View<double> b, std::vector<double> &history) {
  auto r = r_;
  auto d = d_;
  auto q = q_;
  const MDRange interior{1, nx_ + 1, 1, ny_ + 1};
  apply(x, q);
  parallel_for("cg.init", interior, [=](int i, int j) {
    r(i, j) = b(i, j) - q(i, j);
    d(i, j) = r(i, j);
  });
  const double bnorm = std::sqrt(dot(b, b));
  if (bnorm == 0.0) {
    last_iterations_ = 0;
    return 0;
  }
  double rr = dot(r, r);
  int it = 0;
  while (it < max_iter_ && std::sqrt(rr) > tol_ * bnorm) {
    apply(d, q);
    const double alpha = rr / dot(d, q);
    parallel_for("cg.update", interior, [=](int i, int j) {
      x(i, j) += alpha * d(i, j);
      r(i, j) -= alpha * q(i, j);
    });
    const double rr_new = dot(r, r);
    const double beta = rr_new / rr;
    rr = rr_new;
    parallel_for("cg.direction", interior,
                 [=](int i, int j) { d(i, j) = r(i, j) + beta * d(i, j); });
    ++it;
    history.push_back(std::sqrt(rr) / bnorm);
  }
  last_iterations_ = it;
  total_iterations_ += it;
  return it;
}

} // namespace lg
