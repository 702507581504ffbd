// PcgSolver.hpp - preconditioned conjugate gradients.
//
// The solver keeps its four work vectors (residual r, preconditioned
// residual z, search direction p, q = A p) between solves, and records a
// residual history and timers in its Stats.
#pragma once

#include <memory>

#include "Preconditioner.hpp"
#include "Solver.hpp"

namespace pcg {

class PcgSolver final : public Solver {
public:
  PcgSolver(const CsrMatrix &A, std::unique_ptr<Preconditioner> M, const SolverOptions &opt);
  SolveResult solve(const Vector &b, Vector &x) override;
  const char *name() const override { return name_; }

private:
  double timed_dot(const Vector &a, const Vector &b);

  const CsrMatrix &A_;
  std::unique_ptr<Preconditioner> M_;
  double rtol_;
  int max_iterations_;
  char name_[32];
  Vector r_, z_, p_, q_;
};

} // namespace pcg
