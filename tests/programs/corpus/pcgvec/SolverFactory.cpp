// SolverFactory.cpp - make_solver(): the solver and preconditioner by name.
#include <stdexcept>

#include "PcgSolver.hpp"
#include "Preconditioner.hpp"
#include "Solver.hpp"

namespace pcg {

std::unique_ptr<Solver> make_solver(const CsrMatrix &A, const SolverOptions &opt) {
  const auto t0 = Stats::clock::now();
  if (opt.method != "pcg")
    throw std::invalid_argument("unknown solver '" + opt.method + "'");
  std::unique_ptr<Preconditioner> M = make_preconditioner(opt.precond, A);
  auto solver = std::make_unique<PcgSolver>(A, std::move(M), opt);
  const std::chrono::duration<double> dt = Stats::clock::now() - t0;
  solver->add_setup_time(dt.count());
  return solver;
}

} // namespace pcg
