// CsrMatrix.cpp - assembly and the row-wise kernels of the CSR matrix.
#include "CsrMatrix.hpp"

#include <stdexcept>

namespace pcg {

CsrMatrix::Builder::Builder(int nrows, int nnz_hint) : nrows_(nrows) {
  row_ptr_.reserve(static_cast<std::size_t>(nrows) + 1);
  row_ptr_.push_back(0);
  if (nnz_hint > 0) {
    col_idx_.reserve(static_cast<std::size_t>(nnz_hint));
    values_.reserve(static_cast<std::size_t>(nnz_hint));
  }
}

void CsrMatrix::Builder::add(int col, double value) {
  if (col < 0 || col >= nrows_)
    throw std::out_of_range("CsrMatrix::Builder::add: column out of range");
  col_idx_.push_back(col);
  values_.push_back(value);
}

void CsrMatrix::Builder::end_row() {
  // keep the columns of the row sorted (insertion sort: rows are short)
  const int start = row_ptr_.back();
  const int stop = static_cast<int>(col_idx_.size());
  for (int k = start + 1; k < stop; ++k) {
    const int c = col_idx_[k];
    const double val = values_[k];
    int m = k - 1;
    while (m >= start && col_idx_[m] > c) {
      col_idx_[m + 1] = col_idx_[m];
      values_[m + 1] = values_[m];
      --m;
    }
    col_idx_[m + 1] = c;
    values_[m + 1] = val;
  }
  row_ptr_.push_back(stop);
}

CsrMatrix CsrMatrix::Builder::build() {
  if (static_cast<int>(row_ptr_.size()) != nrows_ + 1)
    throw std::logic_error("CsrMatrix::Builder::build: not every row was ended");
  CsrMatrix A;
  A.nrows_ = nrows_;
  A.row_ptr_ = std::move(row_ptr_);
  A.col_idx_ = std::move(col_idx_);
  A.values_ = std::move(values_);
  return A;
}

void CsrMatrix::multiply(const Vector &x, Vector &y) const {
  for (int i = 0; i < nrows_; ++i) {
    double sum = 0.0;
    for (const auto e : row(i))
      sum += e.value * x[static_cast<std::size_t>(e.col)];
    y[static_cast<std::size_t>(i)] = sum;
  }
}

std::vector<int> CsrMatrix::diagonal_positions() const {
  std::vector<int> pos(static_cast<std::size_t>(nrows_), -1);
  for (int i = 0; i < nrows_; ++i)
    for (int k = row_ptr_[i]; k < row_ptr_[i + 1]; ++k)
      if (col_idx_[k] == i)
        pos[static_cast<std::size_t>(i)] = k;
  return pos;
}

} // namespace pcg
