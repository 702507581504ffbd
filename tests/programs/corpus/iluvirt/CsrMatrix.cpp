#include "CsrMatrix.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace iv {

CsrMatrix::CsrMatrix(int n, std::vector<Triplet> triplets) : n_(n) {
  std::sort(triplets.begin(), triplets.end(),
            [](const Triplet& a, const Triplet& b) {
              return a.row != b.row ? a.row < b.row : a.col < b.col;
            });
  rowptr_.assign(static_cast<std::size_t>(n) + 1, 0);
  colind_.reserve(triplets.size());
  values_.reserve(triplets.size());
  int last_row = -1, last_col = -1;
  for (const Triplet& t : triplets) {
    if (t.row == last_row && t.col == last_col) {
      values_.back() += t.value;
      continue;
    }
    colind_.push_back(t.col);
    values_.push_back(t.value);
    rowptr_[static_cast<std::size_t>(t.row) + 1]++;
    last_row = t.row;
    last_col = t.col;
  }
  for (int i = 0; i < n; ++i)
    rowptr_[i + 1] += rowptr_[i];
}

void CsrMatrix::apply(const Vector& x, Vector& y) const {
  for (int i = 0; i < n_; ++i) {
    double s = 0.0;
    for (int k = rowptr_[i]; k < rowptr_[i + 1]; ++k)
      s += values_[k] * x[colind_[k]];
    y[i] = s;
  }
}

Vector CsrMatrix::diagonal() const {
  Vector d(static_cast<std::size_t>(n_), 0.0);
  for (int i = 0; i < n_; ++i)
    for (int k = rowptr_[i]; k < rowptr_[i + 1]; ++k)
      if (colind_[k] == i)
        d[i] = values_[k];
  return d;
}

double CsrMatrix::normInf() const {
  double m = 0.0;
  for (int i = 0; i < n_; ++i) {
    double s = 0.0;
    for (int k = rowptr_[i]; k < rowptr_[i + 1]; ++k)
      s += std::fabs(values_[k]);
    m = std::max(m, s);
  }
  return m;
}

}  // namespace iv
