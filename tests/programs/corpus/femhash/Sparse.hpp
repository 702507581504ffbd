// Sparse matrices: SparseBuilder collects (row, col, value) contributions of
// the element matrices in a hash map keyed by row * n + col, summing
// duplicates; compress() sorts the keys into a CsrMatrix.
#pragma once

#include <unordered_map>
#include <vector>

namespace fem {

struct CsrMatrix {
  int n = 0;
  std::vector<int> row_ptr;  // n + 1 offsets into col and val
  std::vector<int> col;
  std::vector<double> val;

  int nnz() const { return static_cast<int>(val.size()); }
  std::vector<double> diagonal() const;
};

// y = A x
void spmv(const CsrMatrix &A, const std::vector<double> &x, std::vector<double> &y);

class SparseBuilder {
public:
  explicit SparseBuilder(int n, int nnz_hint = 0);

  void add(int i, int j, double v) {
    entries[static_cast<long long>(i) * n_ + j] += v;
  }
  void clear() { entries.clear(); }
  int size() const { return n_; }
  std::size_t num_entries() const { return entries.size(); }

  CsrMatrix compress() const;

  std::unordered_map<long long, double> entries;

private:
  int n_;
};

}  // namespace fem
