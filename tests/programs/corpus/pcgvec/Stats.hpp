// Stats.hpp - timers, counters and the residual history a solver keeps.
//
// Every solver owns one Stats. Phases are timed with ScopedTimer, which adds
// the std::chrono::steady_clock time between its construction and its
// destruction to one of the accumulators.
#pragma once

#include <chrono>
#include <cstdio>
#include <vector>

namespace pcg {

struct Stats {
  using clock = std::chrono::steady_clock;

  double t_setup = 0.0;
  double t_solve = 0.0;
  double t_matvec = 0.0;
  double t_precond = 0.0;
  double t_dot = 0.0;
  double t_update = 0.0;

  long matvecs = 0;
  long precond_applies = 0;
  long dots = 0;
  int solves = 0;
  int total_iterations = 0;
  int max_iterations = 0;

  // relative residual after every iteration of every solve
  std::vector<double> residual_history;

  void begin_solve() { ++solves; }

  void record_iteration(double rel_residual) {
    residual_history.push_back(rel_residual);
    ++total_iterations;
  }

  void print(std::FILE *out, int every) const;
};

class ScopedTimer {
public:
  explicit ScopedTimer(double &accumulator)
      : accumulator_(accumulator), start_(Stats::clock::now()) {}
  ~ScopedTimer() {
    const std::chrono::duration<double> dt = Stats::clock::now() - start_;
    accumulator_ += dt.count();
  }

private:
  double &accumulator_;
  Stats::clock::time_point start_;
};

} // namespace pcg
