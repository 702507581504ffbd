// Solver.hpp - the abstract linear solver and its factory.
//
// Applications hold a std::unique_ptr<Solver> made by make_solver() and call
// solve(b, x) once per right-hand side; x is the initial guess on entry and
// the solution on return. The concrete solvers (PcgSolver.hpp) and the
// preconditioners (Preconditioner.hpp) are chosen by name in SolverOptions.
#pragma once

#include <memory>
#include <string>

#include "CsrMatrix.hpp"
#include "Stats.hpp"
#include "Vector.hpp"

namespace pcg {

struct SolverOptions {
  std::string method = "pcg";     // the only one so far
  std::string precond = "ilu0";   // "ilu0" (the only one so far)
  double rtol = 1e-8;
  int max_iterations = 1000;
  int history_every = 10;         // 0: do not print the residual history
};

struct SolveResult {
  bool converged = false;
  int iterations = 0;
  double rel_residual = 0.0;
};

class Solver {
public:
  virtual ~Solver() = default;
  virtual SolveResult solve(const Vector &b, Vector &x) = 0;
  virtual const char *name() const = 0;

  const Stats &stats() const { return stats_; }
  void add_setup_time(double seconds) { stats_.t_setup += seconds; }

protected:
  Stats stats_;
};

// Builds the solver `opt.method` with the preconditioner `opt.precond` for A.
// A must outlive the solver. Throws std::invalid_argument on unknown names.
std::unique_ptr<Solver> make_solver(const CsrMatrix &A, const SolverOptions &opt);

} // namespace pcg
