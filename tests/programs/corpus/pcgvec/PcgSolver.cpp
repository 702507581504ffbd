// PcgSolver.cpp - the PCG iteration.
#include "PcgSolver.hpp"

#include <cmath>
#include <cstdio>

namespace pcg {

PcgSolver::PcgSolver(const CsrMatrix &A, std::unique_ptr<Preconditioner> M,
                     const SolverOptions &opt)
    : A_(A), M_(std::move(M)), rtol_(opt.rtol), max_iterations_(opt.max_iterations) {
  std::snprintf(name_, sizeof name_, "pcg/%s", M_->name());
  const std::size_t n = static_cast<std::size_t>(A_.rows());
  r_.resize(n);
  z_.resize(n);
  p_.resize(n);
  q_.resize(n);
}

double PcgSolver::timed_dot(const Vector &a, const Vector &b) {
  ScopedTimer timer(stats_.t_dot);
  ++stats_.dots;
  return a.dot(b);
}

SolveResult PcgSolver::solve(const Vector &b, Vector &x) {
  ScopedTimer total(stats_.t_solve);
  stats_.begin_solve();
  SolveResult result;

  // r = b - A x
  {
    ScopedTimer timer(stats_.t_matvec);
    A_.multiply(x, q_);
    ++stats_.matvecs;
  }
  r_ = b;
  r_ -= q_;

  const double bnorm = std::sqrt(timed_dot(b, b));
  const double stop = rtol_ * (bnorm > 0.0 ? bnorm : 1.0);
  double rnorm = std::sqrt(timed_dot(r_, r_));
  if (rnorm <= stop) {
    result.converged = true;
    result.rel_residual = rnorm / (bnorm > 0.0 ? bnorm : 1.0);
    return result;
  }

  {
    ScopedTimer timer(stats_.t_precond);
    M_->apply(r_, z_);
    ++stats_.precond_applies;
  }
  p_ = z_;
  double rz = timed_dot(r_, z_);

  int it = 0;
  while (it < max_iterations_) {
    ++it;
    {
      ScopedTimer timer(stats_.t_matvec);
      A_.multiply(p_, q_);
      ++stats_.matvecs;
    }
    const double pq = timed_dot(p_, q_);
    if (pq <= 0.0) {
      std::fprintf(stderr, "%s: matrix not positive definite (p.Ap = %g)\n", name_, pq);
      break;
    }
    const double alpha = rz / pq;
    {
      ScopedTimer timer(stats_.t_update);
      x.axpy(alpha, p_);
      r_.axpy(-alpha, q_);
    }
    rnorm = std::sqrt(timed_dot(r_, r_));
    stats_.record_iteration(rnorm / bnorm);
    if (rnorm <= stop) {
      result.converged = true;
      break;
    }
    {
      ScopedTimer timer(stats_.t_precond);
      M_->apply(r_, z_);
      ++stats_.precond_applies;
    }
    const double rz_new = timed_dot(r_, z_);
    const double beta = rz_new / rz;
    rz = rz_new;
    {
      ScopedTimer timer(stats_.t_update);
      p_.xpay(z_, beta);
    }
  }

  result.iterations = it;
  result.rel_residual = rnorm / bnorm;
  if (it > stats_.max_iterations)
    stats_.max_iterations = it;
  return result;
}

} // namespace pcg
