#include "Gmres.hpp"

#include <cmath>

namespace iv {

GmresSolver::GmresSolver(int restart, double rtol, int max_iterations)
    : restart_(restart), rtol_(rtol), max_iterations_(max_iterations) {}

void GmresSolver::resize(std::size_t n) {
  const std::size_t m = static_cast<std::size_t>(restart_);
  if (V_.size() == m + 1 && V_[0].size() == n)
    return;
  V_.assign(m + 1, Vector(n, 0.0));
  H_.assign(m, std::vector<double>(m + 1, 0.0));
  cs_.assign(m, 0.0);
  sn_.assign(m, 0.0);
  g_.assign(m + 1, 0.0);
  y_.assign(m, 0.0);
  w_.assign(n, 0.0);
  z_.assign(n, 0.0);
}

void GmresSolver::rotate(int j) {
  std::vector<double>& h = H_[j];
  for (int i = 0; i < j; ++i) {
    const double t = cs_[i] * h[i] + sn_[i] * h[i + 1];
    h[i + 1] = -sn_[i] * h[i] + cs_[i] * h[i + 1];
    h[i] = t;
  }
  const double r = std::hypot(h[j], h[j + 1]);
  cs_[j] = r > 0.0 ? h[j] / r : 1.0;
  sn_[j] = r > 0.0 ? h[j + 1] / r : 0.0;
  h[j] = r;
  h[j + 1] = 0.0;
  g_[j + 1] = -sn_[j] * g_[j];
  g_[j] = cs_[j] * g_[j];
}

void GmresSolver::update(const Preconditioner& M, int k, Vector& x) {
  ScopedTimer timer(timers_, "update");
  for (int i = k - 1; i >= 0; --i) {
    double s = g_[i];
    for (int l = i + 1; l < k; ++l)
      s -= H_[l][i] * y_[l];
    y_[i] = s / H_[i][i];
  }
  std::fill(w_.begin(), w_.end(), 0.0);
  for (int i = 0; i < k; ++i)
    axpy(y_[i], V_[i], w_);
  M.apply(w_, z_);
  axpy(1.0, z_, x);
}

SolveInfo GmresSolver::solve(const LinearOperator& A, const Preconditioner& M,
                             const Vector& b, Vector& x) {
  ScopedTimer total(timers_, "solve");
  const std::size_t n = b.size();
  resize(n);
  SolveInfo info;
  const double bnorm = nrm2(b) > 0.0 ? nrm2(b) : 1.0;

  while (info.iterations < max_iterations_) {
    // r = b - A x into the first basis vector
    {
      ScopedTimer timer(timers_, "matvec");
      A.apply(x, V_[0]);
    }
    xmy(b, V_[0]);
    const double beta = nrm2(V_[0]);
    info.residual = beta / bnorm;
    history_.push_back(info.residual);
    if (info.residual < rtol_) {
      info.converged = true;
      break;
    }
    scal(1.0 / beta, V_[0]);
    std::fill(g_.begin(), g_.end(), 0.0);
    g_[0] = beta;

    int j = 0;
    for (; j < restart_ && info.iterations < max_iterations_; ++j) {
      {
        ScopedTimer timer(timers_, "precond");
        M.apply(V_[j], z_);
      }
      {
        ScopedTimer timer(timers_, "matvec");
        A.apply(z_, w_);
      }
      {
        ScopedTimer timer(timers_, "orthogonalize");
        std::vector<double>& h = H_[j];
        for (int i = 0; i <= j; ++i) {
          h[i] = dot(w_, V_[i]);
          axpy(-h[i], V_[i], w_);
        }
        h[j + 1] = nrm2(w_);
        Vector& next = V_[j + 1];
        const double inv = h[j + 1] > 0.0 ? 1.0 / h[j + 1] : 0.0;
        for (std::size_t i = 0; i < n; ++i)
          next[i] = inv * w_[i];
      }
      rotate(j);
      ++info.iterations;
      ++total_iterations_;
      info.residual = std::fabs(g_[j + 1]) / bnorm;
      history_.push_back(info.residual);
      if (info.residual < rtol_) {
        ++j;
        break;
      }
    }
    update(M, j, x);
    ++info.restarts;
    if (info.residual < rtol_) {
      info.converged = true;
      break;
    }
  }
  return info;
}

}  // namespace iv
