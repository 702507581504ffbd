#include "Preconditioner.hpp"

#include <stdexcept>

namespace iv {

void JacobiPreconditioner::setup(const CsrMatrix& A) {
  inv_diag_ = A.diagonal();
  for (double& d : inv_diag_)
    d = d != 0.0 ? 1.0 / d : 1.0;
}

void JacobiPreconditioner::apply(const Vector& r, Vector& z) const {
  const std::size_t n = r.size();
  for (std::size_t i = 0; i < n; ++i)
    z[i] = inv_diag_[i] * r[i];
}

// The IKJ variant of Gaussian elimination restricted to the pattern of A.
void Ilu0Preconditioner::setup(const CsrMatrix& A) {
  n_ = static_cast<int>(A.rows());
  rowptr_ = A.rowPtr();
  colind_ = A.colInd();
  lu_ = A.values();
  diag_.assign(static_cast<std::size_t>(n_), -1);
  std::vector<int> pos(static_cast<std::size_t>(n_), -1);

  for (int i = 0; i < n_; ++i) {
    for (int k = rowptr_[i]; k < rowptr_[i + 1]; ++k) {
      pos[colind_[k]] = k;
      if (colind_[k] == i)
        diag_[i] = k;
    }
    for (int k = rowptr_[i]; k < rowptr_[i + 1] && colind_[k] < i; ++k) {
      const int j = colind_[k];
      const double lij = lu_[k] / lu_[diag_[j]];
      lu_[k] = lij;
      for (int m = diag_[j] + 1; m < rowptr_[j + 1]; ++m) {
        const int p = pos[colind_[m]];
        if (p >= 0)
          lu_[p] -= lij * lu_[m];
      }
    }
    for (int k = rowptr_[i]; k < rowptr_[i + 1]; ++k)
      pos[colind_[k]] = -1;
    if (diag_[i] < 0 || lu_[diag_[i]] == 0.0)
      throw std::runtime_error("ilu0: zero pivot");
  }
}

// z = U^-1 L^-1 r: a forward sweep with the unit lower factor, a backward
// sweep with the upper one.
void Ilu0Preconditioner::apply(const Vector& r, Vector& z) const {
  for (int i = 0; i < n_; ++i) {
    double s = r[i];
    for (int k = rowptr_[i]; k < diag_[i]; ++k)
      s -= lu_[k] * z[colind_[k]];
    z[i] = s;
  }
  for (int i = n_ - 1; i >= 0; --i) {
    double s = z[i];
    for (int k = diag_[i] + 1; k < rowptr_[i + 1]; ++k)
      s -= lu_[k] * z[colind_[k]];
    z[i] = s / lu_[diag_[i]];
  }
}

std::unique_ptr<Preconditioner> makePreconditioner(const std::string& kind) {
  if (kind == "none")
    return std::make_unique<IdentityPreconditioner>();
  if (kind == "jacobi")
    return std::make_unique<JacobiPreconditioner>();
  if (kind == "ilu0")
    return std::make_unique<Ilu0Preconditioner>();
  throw std::invalid_argument("unknown preconditioner '" + kind + "'");
}

}  // namespace iv
