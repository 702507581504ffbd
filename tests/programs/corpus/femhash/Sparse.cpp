#include "Sparse.hpp"

#include <algorithm>
#include <utility>

namespace fem {

std::vector<double> CsrMatrix::diagonal() const {
  std::vector<double> d(n, 0.0);
  for (int i = 0; i < n; ++i)
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k)
      if (col[k] == i) d[i] = val[k];
  return d;
}

void spmv(const CsrMatrix &A, const std::vector<double> &x, std::vector<double> &y) {
  y.resize(A.n);
  for (int i = 0; i < A.n; ++i) {
    double s = 0.0;
    for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) s += A.val[k] * x[A.col[k]];
    y[i] = s;
  }
}

SparseBuilder::SparseBuilder(int n, int nnz_hint) : n_(n) {
  if (nnz_hint > 0) entries.reserve(nnz_hint);
}

CsrMatrix SparseBuilder::compress() const {
  // the hash map has no order: sort the keys, which sorts by row, then column
  std::vector<std::pair<long long, double>> sorted(entries.begin(), entries.end());
  std::sort(sorted.begin(), sorted.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });

  CsrMatrix A;
  A.n = n_;
  A.row_ptr.assign(n_ + 1, 0);
  A.col.reserve(sorted.size());
  A.val.reserve(sorted.size());
  for (const auto &[key, value] : sorted) {
    const int i = static_cast<int>(key / n_);
    A.row_ptr[i + 1]++;
    A.col.push_back(static_cast<int>(key % n_));
    A.val.push_back(value);
  }
  for (int i = 0; i < n_; ++i) A.row_ptr[i + 1] += A.row_ptr[i];
  return A;
}

}  // namespace fem
