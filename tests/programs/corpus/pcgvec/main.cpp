// pcgvec: steady heat conduction in a layered, anisotropic block, solved
// for a series of moving heat sources with ILU(0)-preconditioned conjugate
// gradients, written in the style of a small modern C++ solver library:
//   - CsrMatrix (CsrMatrix.hpp): the CSR arrays in std::vector members, rows
//     exposed as views whose iterators yield (column, value) entries, used
//     with range-for (`for (const auto e : row(i))`) and explicit iterators
//     (`for (auto it = row.begin(); it != row.end(); ++it)`);
//   - Vector (Vector.hpp): a value type over std::vector<double> with
//     operator+=, operator-=, axpy, xpay and dot, inlined into the solver;
//   - Solver (Solver.hpp): a virtual base class with solve(b, x); main holds
//     a std::unique_ptr<Solver> made by the factory make_solver(), which
//     builds a PcgSolver (PcgSolver.cpp) owning its preconditioner
//     (std::unique_ptr<Preconditioner>: Ilu0Preconditioner keeps its own CSR
//     copy of A with the L and U factors) and its work vectors r_, z_, p_, q_;
//   - Stats (Stats.hpp): std::chrono timers filled by RAII ScopedTimers,
//     counters and the residual history (a std::vector<double> of relative
//     residuals of every iteration), kept by the solver and printed at the end.
//   usage: pcgvec [n] [cases] [ilu0]   (n^3 unknowns; defaults 40 12
//                                              ilu0; about 61 iterations per
//                                              case to 1e-8)
//
// This program is held out of tuning (issue 30): not to be used while
// tuning blame; its figures are reported apart.
//
// Expected ranking, derived from a by-function profile (perf record -e
// cpu-clock -F 999 -g --call-graph dwarf of a clang++-19 -O2 -g build, 1,065
// samples, serial, on the 2-core machine loaded by other builds, load ~9):
//   PcgSolver::solve                    95.9%
//     Ilu0Preconditioner::apply          54.4%  forward and backward sweeps over
//                                               the factor -> writes z_
//     CsrMatrix::multiply                25.5%  q_ = A p_ (and q_ = A x once per
//                                               solve) -> writes q_
//     Vector::dot (inlined)               9.3%  p.q, r.r, r.z: scalars feeding
//                                               alpha, beta and the residual
//                                               history (r.r is about a third)
//     Vector::axpy (inlined)              4.0%  x += alpha p, r_ -= alpha q_
//     Vector::xpay (inlined)              1.9%  p_ = z_ + beta p_
//     timers (steady_clock::now)          0.2%
//   assemble_conduction                   1.4%  A (sin/cos of conductivity())
//   make_solver                           0.6%  ILU(0) factorization into the
//                                               solver's preconditioner 0.5%
//   fill_source                           0.5%  b (exp)
//   main's check b - A * x                0.3%  residual
//  main:
//  1. solver   >= 90% of PcgSolver::solve's time (everything the solve
//              computes but x is the solver's own: z_ 54%, q_ 26%, r_ and p_
//              ~4% with their share of the dots); a data structure (the
//              object behind the unique_ptr), not a derived scalar; if its
//              members are listed: z_ above q_, both above stats_;
//  2. x        the solution: ~2% explicit (its axpy) plus the dots that make
//              alpha; inclusive blame may lift it by the recurrence up to
//              solver's share, never above it;
//  3. A ~1.5%, b ~0.5% (assembly and sources: the solve only reads them).
// Must not rank high: inside the solver, stats_ (timers t_solve, t_matvec,
// t_precond, t_dot, t_update, t_setup only get clock differences; counters
// matvecs, dots, precond_applies, solves, total_iterations; the residual
// history gets rnorm / bnorm: at most the r.r dots, ~3%, and listed as a
// record); the ScopedTimers (timer, total); in main: mean_temperature
// (a record of results: derived), peak, checksum, failures, true_rel, res, t_start, t_assemble, grid, opt, n, ncases.
// No rows at all for the iterators and element references: it, e, row (a
// view of two pointers into A or the factor), __begin1/__end1/__range1,
// src, nb, v.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "CsrMatrix.hpp"
#include "Problem.hpp"
#include "Solver.hpp"
#include "Vector.hpp"

using namespace pcg;

namespace {

// Load cases: a moving heat source of varying size and power.
std::vector<HeatSource> load_cases(int count) {
  std::vector<HeatSource> cases;
  cases.reserve(static_cast<std::size_t>(count));
  for (int c = 0; c < count; ++c) {
    const double s = (c + 0.5) / count;
    cases.push_back(HeatSource{0.2 + 0.6 * s, 0.5 + 0.3 * (s - 0.5), 0.3 + 0.4 * s * s,
                               0.05 + 0.1 * s, 100.0 * (1.0 + s)});
  }
  return cases;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char **argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 40;
  const int ncases = argc > 2 ? std::atoi(argv[2]) : 12;
  SolverOptions opt;
  if (argc > 3)
    opt.precond = argv[3];
  if (n < 4 || ncases < 1) {
    std::fprintf(stderr, "usage: %s [n >= 4] [cases >= 1] [ilu0]\n", argv[0]);
    return 1;
  }

  const auto t_start = std::chrono::steady_clock::now();
  const Grid grid{n, n, n, 1.0 / n};
  const CsrMatrix A = assemble_conduction(grid);
  const double t_assemble = seconds_since(t_start);
  std::printf("grid %d^3: %d unknowns, %zu nonzeros (%.3f s)\n", n, A.rows(), A.nonzeros(),
              t_assemble);

  std::unique_ptr<Solver> solver;
  try {
    solver = make_solver(A, opt);
  } catch (const std::exception &err) {
    std::fprintf(stderr, "%s\n", err.what());
    return 1;
  }

  const std::size_t nrows = static_cast<std::size_t>(A.rows());
  Vector b(nrows), x(nrows);
  std::vector<double> mean_temperature;
  int failures = 0;
  for (const HeatSource &src : load_cases(ncases)) {
    fill_source(grid, src, b);
    x.fill(0.0);
    const SolveResult res = solver->solve(b, x);
    // check the solution against the original system
    const Vector residual = b - A * x;
    const double true_rel = residual.norm2() / b.norm2();
    double peak = 0.0;
    for (double v : x)
      peak = v > peak ? v : peak;
    mean_temperature.push_back(x.sum() / static_cast<double>(nrows));
    std::printf("case %zu: %s, %d iterations, residual %.2e (true %.2e), mean T %.6f, "
                "peak T %.6f\n",
                mean_temperature.size() - 1, res.converged ? "converged" : "NOT CONVERGED",
                res.iterations, res.rel_residual, true_rel, mean_temperature.back(), peak);
    if (!res.converged || true_rel > 100.0 * opt.rtol)
      ++failures;
  }

  double checksum = 0.0;
  for (std::size_t c = 0; c < mean_temperature.size(); ++c)
    checksum += (c + 1) * mean_temperature[c];
  std::printf("%s: %d cases, checksum %.10e, %d failures, %.3f s total\n", solver->name(),
              ncases, checksum, failures, seconds_since(t_start));
  solver->stats().print(stdout, opt.history_every);
  return failures == 0 ? 0 : 2;
}
