// CgSolver.hpp - conjugate gradients for the pressure Poisson equation
// -lap(x) = b on the interior of a (nx + 2) x (ny + 2) grid with x = 0 in
// the ghost cells, written with parallel_for / parallel_reduce kernels over
// the solver's own work views r_, d_, q_.
#pragma once

#include <vector>

#include "View.hpp"

namespace lg {

class CgSolver {
public:
  CgSolver(int nx, int ny, double h, double tol, int max_iter);

  // Solves in place from the initial guess x; appends the relative
  // residual of every iteration to history. Returns the iterations done.
  int solve(View<double> x, View<double> b, std::vector<double> &history);

  int last_iterations() const { return last_iterations_; }
  long total_iterations() const { return total_iterations_; }

private:
  double dot(const View<double> &a, const View<double> &b) const;
  void apply(const View<double> &in, const View<double> &out) const;

  int nx_, ny_;
  double inv_h2_;
  double tol_;
  int max_iter_;
  View<double> r_, d_, q_;
  int last_iterations_ = 0;
  long total_iterations_ = 0;
};

} // namespace lg
