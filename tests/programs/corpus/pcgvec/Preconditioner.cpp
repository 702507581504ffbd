// Preconditioner.cpp - the ILU(0) preconditioner and the factory of preconditioners.
#include "Preconditioner.hpp"

#include <stdexcept>

namespace pcg {

Ilu0Preconditioner::Ilu0Preconditioner(const CsrMatrix &A)
    : lu_(A), diag_pos_(A.diagonal_positions()) {
  const int n = lu_.rows();
  // marker[j]: position of column j in the row being eliminated, -1 if absent
  std::vector<int> marker(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    if (diag_pos_[static_cast<std::size_t>(i)] < 0)
      throw std::runtime_error("ILU(0): missing diagonal entry");
    const int start = lu_.row_begin(i);
    const int stop = lu_.row_end(i);
    for (int p = start; p < stop; ++p)
      marker[static_cast<std::size_t>(lu_.col_at(p))] = p;
    for (int p = start; p < stop; ++p) {
      const int k = lu_.col_at(p);
      if (k >= i)
        break;
      // l_ik = a_ik / u_kk, then row_i -= l_ik * row_k (upper part of row k)
      const double lik = lu_.value_at(p) / lu_.value_at(diag_pos_[static_cast<std::size_t>(k)]);
      lu_.value_at(p) = lik;
      for (int q = diag_pos_[static_cast<std::size_t>(k)] + 1; q < lu_.row_end(k); ++q) {
        const int m = marker[static_cast<std::size_t>(lu_.col_at(q))];
        if (m >= 0)
          lu_.value_at(m) -= lik * lu_.value_at(q);
      }
    }
    for (int p = start; p < stop; ++p)
      marker[static_cast<std::size_t>(lu_.col_at(p))] = -1;
  }
}

void Ilu0Preconditioner::apply(const Vector &r, Vector &z) const {
  const int n = lu_.rows();
  // forward: L y = r, L unit lower; y is kept in z
  for (int i = 0; i < n; ++i) {
    double s = r[static_cast<std::size_t>(i)];
    const CsrMatrix::Row row = lu_.row(i);
    for (auto it = row.begin(); it != row.end() && it.column() < i; ++it)
      s -= it.value() * z[static_cast<std::size_t>(it.column())];
    z[static_cast<std::size_t>(i)] = s;
  }
  // backward: U z = y
  for (int i = n - 1; i >= 0; --i) {
    double s = z[static_cast<std::size_t>(i)];
    const int d = diag_pos_[static_cast<std::size_t>(i)];
    for (int q = d + 1; q < lu_.row_end(i); ++q)
      s -= lu_.value_at(q) * z[static_cast<std::size_t>(lu_.col_at(q))];
    z[static_cast<std::size_t>(i)] = s / lu_.value_at(d);
  }
}

std::unique_ptr<Preconditioner> make_preconditioner(const std::string &kind,
                                                    const CsrMatrix &A) {
  if (kind == "ilu0")
    return std::make_unique<Ilu0Preconditioner>(A);
  throw std::invalid_argument("unknown preconditioner '" + kind + "'");
}

} // namespace pcg
