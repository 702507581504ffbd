// CsrMatrix.hpp - a sparse matrix in compressed-row storage.
//
// The three CSR arrays are std::vector members. A row is exposed as a
// lightweight view (CsrMatrix::Row) whose iterators yield (column, value)
// entries, so kernels can be written as
//
//     for (const auto e : A.row(i)) y += e.value * x[e.col];
//
// Matrices are assembled row by row through CsrMatrix::Builder.
#pragma once

#include <cstddef>
#include <vector>

#include "Vector.hpp"

namespace pcg {

class CsrMatrix {
public:
  struct Entry {
    int col;
    double value;
  };

  class RowIterator {
  public:
    RowIterator(const int *col, const double *val) : col_(col), val_(val) {}
    Entry operator*() const { return Entry{*col_, *val_}; }
    RowIterator &operator++() {
      ++col_;
      ++val_;
      return *this;
    }
    bool operator!=(const RowIterator &o) const { return col_ != o.col_; }
    int column() const { return *col_; }
    double value() const { return *val_; }

  private:
    const int *col_;
    const double *val_;
  };

  class Row {
  public:
    Row(const int *col, const double *val, int len) : col_(col), val_(val), len_(len) {}
    RowIterator begin() const { return RowIterator(col_, val_); }
    RowIterator end() const { return RowIterator(col_ + len_, val_ + len_); }
    int size() const { return len_; }

  private:
    const int *col_;
    const double *val_;
    int len_;
  };

  class Builder {
  public:
    explicit Builder(int nrows, int nnz_hint = 0);
    void add(int col, double value);
    void end_row();
    CsrMatrix build();

  private:
    int nrows_;
    std::vector<int> row_ptr_;
    std::vector<int> col_idx_;
    std::vector<double> values_;
  };

  CsrMatrix() = default;

  int rows() const { return nrows_; }
  std::size_t nonzeros() const { return values_.size(); }

  Row row(int i) const {
    const int start = row_ptr_[i];
    return Row(col_idx_.data() + start, values_.data() + start, row_ptr_[i + 1] - start);
  }

  // Raw access for factorizations that update values in place.
  int row_begin(int i) const { return row_ptr_[i]; }
  int row_end(int i) const { return row_ptr_[i + 1]; }
  int col_at(int k) const { return col_idx_[k]; }
  double &value_at(int k) { return values_[k]; }
  double value_at(int k) const { return values_[k]; }

  // y <- A x
  void multiply(const Vector &x, Vector &y) const;
  // position of the diagonal entry of every row, -1 when absent
  std::vector<int> diagonal_positions() const;

private:
  int nrows_ = 0;
  std::vector<int> row_ptr_;
  std::vector<int> col_idx_;
  std::vector<double> values_;
};

inline Vector operator*(const CsrMatrix &A, const Vector &x) {
  Vector y(static_cast<std::size_t>(A.rows()));
  A.multiply(x, y);
  return y;
}

} // namespace pcg
