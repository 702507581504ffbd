#include "CgSolver.hpp"

#include <cmath>

#include "LinAlg.hpp"

namespace fem {

void CgSolver::precondition() {
  const std::size_t n = r_.size();
  for (std::size_t i = 0; i < n; ++i) z_[i] = inv_diag_[i] * r_[i];
}

int CgSolver::solve(const CsrMatrix &A, const std::vector<double> &b, std::vector<double> &x) {
  const int n = A.n;
  inv_diag_ = A.diagonal();
  for (double &d : inv_diag_) d = d != 0.0 ? 1.0 / d : 1.0;
  r_.resize(n);
  z_.resize(n);
  p_.resize(n);
  q_.resize(n);
  x.resize(n, 0.0);
  history.clear();
  ++solves_;

  // r = b - A x
  spmv(A, x, q_);
  for (int i = 0; i < n; ++i) r_[i] = b[i] - q_[i];
  const double bnorm = norm2(b) > 0.0 ? norm2(b) : 1.0;
  double rel = norm2(r_) / bnorm;
  history.push_back(rel);

  precondition();
  p_ = z_;
  double rz = dot(r_, z_);
  int k = 0;
  converged_ = rel < tol_;
  while (!converged_ && k < max_iter_) {
    spmv(A, p_, q_);
    const double alpha = rz / dot(p_, q_);
    axpy(alpha, p_, x);
    axpy(-alpha, q_, r_);
    ++k;
    rel = norm2(r_) / bnorm;
    history.push_back(rel);
    if (rel < tol_) {
      converged_ = true;
      break;
    }
    precondition();
    const double rz_new = dot(r_, z_);
    xpay(z_, rz_new / rz, p_);
    rz = rz_new;
  }
  iterations_ = k;
  total_iterations_ += k;
  return k;
}

}  // namespace fem
