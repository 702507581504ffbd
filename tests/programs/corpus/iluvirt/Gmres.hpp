// Gmres.hpp: restarted GMRES(m) with right preconditioning and modified
// Gram-Schmidt, in the style of the textbook (Saad, Algorithm 9.5).
#pragma once

#include <vector>

#include "LinearOperator.hpp"
#include "Preconditioner.hpp"
#include "Timer.hpp"

namespace iv {

struct SolveInfo {
  int iterations = 0;
  int restarts = 0;
  double residual = 0.0;  // relative, from the recurrence
  bool converged = false;
};

class GmresSolver {
 public:
  GmresSolver(int restart, double rtol, int max_iterations);

  // Solves A x = b with x as the initial guess.
  SolveInfo solve(const LinearOperator& A, const Preconditioner& M,
                  const Vector& b, Vector& x);

  const TimerMap& timers() const { return timers_; }
  const std::vector<double>& residualHistory() const { return history_; }
  int totalIterations() const { return total_iterations_; }

 private:
  void resize(std::size_t n);
  // Applies the rotations so far to column j of H and makes a new one that
  // zeroes H(j+1, j).
  void rotate(int j);
  // x += M^-1 (V y), y from the upper triangular system of the first k
  // columns.
  void update(const Preconditioner& M, int k, Vector& x);

  int restart_;
  double rtol_;
  int max_iterations_;
  std::vector<std::vector<double>> V_;  // the Krylov basis, restart_ + 1 vectors
  std::vector<std::vector<double>> H_;  // Hessenberg columns, restart_ + 1 each
  std::vector<double> cs_, sn_, g_, y_;
  Vector w_, z_;
  std::vector<double> history_;
  TimerMap timers_;
  int total_iterations_ = 0;
};

}  // namespace iv
