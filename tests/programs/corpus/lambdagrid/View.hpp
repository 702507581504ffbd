// View.hpp - a Kokkos-style multidimensional array handle: a labelled 2-D
// view over a reference-counted allocation. Copies are shallow (they share
// the allocation, as Kokkos::View does), so lambdas that capture a view by
// value write the same data; deep_copy copies the values.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

namespace lg {

template <class T>
class View {
public:
  View() = default;
  View(std::string label, int n0, int n1)
      : label_(std::move(label)), n0_(n0), n1_(n1),
        alloc_(new T[static_cast<std::size_t>(n0) * static_cast<std::size_t>(n1)](),
               std::default_delete<T[]>()),
        ptr_(alloc_.get()) {
    if (n0 <= 0 || n1 <= 0)
      throw std::invalid_argument("View " + label_ + ": empty extent");
  }

  T &operator()(int i, int j) const { return ptr_[static_cast<std::size_t>(i) * n1_ + j]; }
  T &operator[](std::size_t k) const { return ptr_[k]; }

  int extent(int dim) const { return dim == 0 ? n0_ : n1_; }
  std::size_t size() const { return static_cast<std::size_t>(n0_) * static_cast<std::size_t>(n1_); }
  const std::string &label() const { return label_; }
  T *data() const { return ptr_; }
  long use_count() const { return alloc_.use_count(); }
  bool is_allocated() const { return ptr_ != nullptr; }

private:
  std::string label_;
  int n0_ = 0, n1_ = 0;
  std::shared_ptr<T> alloc_;
  T *ptr_ = nullptr;
};

// Copies the values of src into dst (same extents).
template <class T>
void deep_copy(const View<T> &dst, const View<T> &src) {
  if (dst.size() != src.size())
    throw std::invalid_argument("deep_copy " + src.label() + " -> " + dst.label() +
                                ": extents differ");
  for (std::size_t k = 0; k < src.size(); ++k)
    dst[k] = src[k];
}

// Sets every value of dst.
template <class T>
void deep_copy(const View<T> &dst, T value) {
  for (std::size_t k = 0; k < dst.size(); ++k)
    dst[k] = value;
}

} // namespace lg
