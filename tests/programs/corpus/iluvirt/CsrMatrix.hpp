// CsrMatrix.hpp: compressed sparse rows, assembled from triplets.
#pragma once

#include <vector>

#include "LinearOperator.hpp"

namespace iv {

struct Triplet {
  int row, col;
  double value;
};

class CsrMatrix : public LinearOperator {
 public:
  CsrMatrix() = default;
  // Sums duplicate entries; the columns of every row are sorted.
  CsrMatrix(int n, std::vector<Triplet> triplets);

  std::size_t rows() const override { return static_cast<std::size_t>(n_); }
  std::size_t nnz() const { return values_.size(); }
  void apply(const Vector& x, Vector& y) const override;

  const std::vector<int>& rowPtr() const { return rowptr_; }
  const std::vector<int>& colInd() const { return colind_; }
  const std::vector<double>& values() const { return values_; }
  Vector diagonal() const;
  // |A|_inf, for the report
  double normInf() const;

 private:
  int n_ = 0;
  std::vector<int> rowptr_;
  std::vector<int> colind_;
  std::vector<double> values_;
};

}  // namespace iv
