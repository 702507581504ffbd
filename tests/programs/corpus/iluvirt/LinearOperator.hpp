// LinearOperator.hpp: what a Krylov method needs of a matrix.
#pragma once

#include <cstddef>

#include "Vec.hpp"

namespace iv {

class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  virtual std::size_t rows() const = 0;
  // y = A x
  virtual void apply(const Vector& x, Vector& y) const = 0;
};

}  // namespace iv
