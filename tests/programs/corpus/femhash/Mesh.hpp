// Mesh: a quadrilateral mesh of a tapered cantilever plate. The grid is laid
// out structured, then made "unstructured": interior nodes are jittered and
// both nodes and elements are renumbered by a pseudo-random permutation, so
// neither the connectivity nor the matrix has any band structure left.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

namespace fem {

class Mesh {
public:
  using Point = std::array<double, 2>;
  using Quad = std::array<int, 4>;  // counter-clockwise node numbers

  Mesh() = default;

  // nx x ny quads over [0, length] x [-h(x)/2, h(x)/2] with
  // h(x) = height * (1 - taper * x / length).
  static Mesh tapered_plate(int nx, int ny, double length, double height,
                            double taper, unsigned seed);

  int num_nodes() const { return static_cast<int>(coords.size()); }
  int num_elems() const { return static_cast<int>(elems.size()); }
  const Point &node(int i) const { return coords[i]; }
  const Quad &elem(int e) const { return elems[e]; }

  double length() const { return length_; }
  // nodes on the clamped edge x = 0 and on the loaded edge x = length
  const std::vector<int> &clamped_nodes() const { return clamped_; }
  const std::vector<int> &loaded_nodes() const { return loaded_; }

  double min_area() const;

  std::vector<Point> coords;
  std::vector<Quad> elems;

private:
  double length_ = 0.0;
  std::vector<int> clamped_;
  std::vector<int> loaded_;
};

}  // namespace fem
