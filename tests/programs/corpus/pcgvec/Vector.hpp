// Vector.hpp - a dense vector of doubles with value semantics.
//
// The solver's work vectors, the right-hand sides and the solutions are all
// Vectors. The element storage is a std::vector<double> member; the
// arithmetic the Krylov solvers need is provided as compound-assignment
// operators and BLAS-1 style methods (axpy, xpay, dot), all defined here so
// that they inline into the solver loops.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace pcg {

class Vector {
public:
  using const_iterator = std::vector<double>::const_iterator;

  Vector() = default;
  explicit Vector(std::size_t n, double value = 0.0) : data_(n, value) {}

  std::size_t size() const { return data_.size(); }
  void resize(std::size_t n, double value = 0.0) { data_.assign(n, value); }

  double &operator[](std::size_t i) { return data_[i]; }
  double operator[](std::size_t i) const { return data_[i]; }

  const_iterator begin() const { return data_.begin(); }
  const_iterator end() const { return data_.end(); }

  void fill(double value) {
    for (auto &v : data_)
      v = value;
  }

  Vector &operator-=(const Vector &other) {
    const std::size_t n = size();
    for (std::size_t i = 0; i < n; ++i)
      data_[i] -= other.data_[i];
    return *this;
  }

  // this <- this + alpha * x
  Vector &axpy(double alpha, const Vector &x) {
    const std::size_t n = size();
    double *__restrict y = data_.data();
    const double *__restrict xs = x.data_.data();
    for (std::size_t i = 0; i < n; ++i)
      y[i] += alpha * xs[i];
    return *this;
  }

  // this <- x + beta * this
  Vector &xpay(const Vector &x, double beta) {
    const std::size_t n = size();
    double *__restrict y = data_.data();
    const double *__restrict xs = x.data_.data();
    for (std::size_t i = 0; i < n; ++i)
      y[i] = xs[i] + beta * y[i];
    return *this;
  }

  double dot(const Vector &other) const {
    double sum = 0.0;
    const std::size_t n = size();
    for (std::size_t i = 0; i < n; ++i)
      sum += data_[i] * other.data_[i];
    return sum;
  }

  double norm2() const { return std::sqrt(dot(*this)); }

  double sum() const {
    double s = 0.0;
    for (double v : data_)
      s += v;
    return s;
  }

private:
  std::vector<double> data_;
};

inline Vector operator-(Vector a, const Vector &b) {
  a -= b;
  return a;
}

} // namespace pcg
