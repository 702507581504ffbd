// Jacobi-preconditioned conjugate gradients. The solver owns its work
// vectors (kept between solves, so repeated solves of the same size do not
// allocate) and the residual history of its last solve.
#pragma once

#include <vector>

#include "Sparse.hpp"

namespace fem {

class CgSolver {
public:
  CgSolver(double rel_tol, int max_iter) : tol_(rel_tol), max_iter_(max_iter) {}

  // Solves A x = b starting from the x given; returns the iteration count.
  int solve(const CsrMatrix &A, const std::vector<double> &b, std::vector<double> &x);

  int iterations() const { return iterations_; }
  long total_iterations() const { return total_iterations_; }
  int solves() const { return solves_; }
  bool converged() const { return converged_; }
  double final_residual() const { return history.empty() ? 0.0 : history.back(); }

  // relative residual |r_k| / |b| of every iteration of the last solve
  std::vector<double> history;

private:
  void precondition();  // z = D^-1 r

  double tol_;
  int max_iter_;
  std::vector<double> inv_diag_, r_, z_, p_, q_;
  int iterations_ = 0;
  long total_iterations_ = 0;
  int solves_ = 0;
  bool converged_ = false;
};

}  // namespace fem
