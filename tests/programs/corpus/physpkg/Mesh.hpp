// Mesh.hpp: a uniform, doubly periodic 2D grid of nx x ny square cells.
#pragma once

#include <cstddef>

namespace pp {

class Mesh {
 public:
  Mesh(int nx, int ny, double length) : nx_(nx), ny_(ny), dx_(length / nx) {}

  int nx() const { return nx_; }
  int ny() const { return ny_; }
  double dx() const { return dx_; }
  double cellArea() const { return dx_ * dx_; }
  std::size_t cells() const {
    return static_cast<std::size_t>(nx_) * static_cast<std::size_t>(ny_);
  }

  // row-major cell index, i fastest
  std::size_t idx(int i, int j) const {
    return static_cast<std::size_t>(j) * static_cast<std::size_t>(nx_) +
           static_cast<std::size_t>(i);
  }
  // periodic neighbours
  int east(int i) const { return i + 1 == nx_ ? 0 : i + 1; }
  int west(int i) const { return i == 0 ? nx_ - 1 : i - 1; }
  int north(int j) const { return j + 1 == ny_ ? 0 : j + 1; }
  int south(int j) const { return j == 0 ? ny_ - 1 : j - 1; }

  // cell centres
  double x(int i) const { return (i + 0.5) * dx_; }
  double y(int j) const { return (j + 0.5) * dx_; }

 private:
  int nx_, ny_;
  double dx_;
};

}  // namespace pp
