#include "Mesh.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>

namespace fem {

namespace {

// A small linear congruential generator: the mesh must be the same on every
// run and with every standard library, so std::shuffle is not used.
class Lcg {
public:
  explicit Lcg(unsigned seed) : state_(seed * 2654435761u + 12345u) {}
  std::uint32_t next() {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>(state_ >> 33);
  }
  double uniform() { return next() / 4294967296.0; }  // [0, 1)
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint32_t>(n)); }

private:
  std::uint64_t state_;
};

std::vector<int> random_permutation(int n, Lcg &rng) {
  std::vector<int> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  for (int i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.below(i + 1)]);
  return perm;
}

}  // namespace

Mesh Mesh::tapered_plate(int nx, int ny, double length, double height,
                         double taper, unsigned seed) {
  if (nx < 1 || ny < 1) throw std::invalid_argument("mesh needs nx, ny >= 1");
  Lcg rng(seed);
  const int nnodes = (nx + 1) * (ny + 1);
  const double hx = length / nx;

  // 1. structured grid, interior nodes jittered by up to 20% of the spacing
  std::vector<Point> grid(nnodes);
  for (int j = 0; j <= ny; ++j) {
    for (int i = 0; i <= nx; ++i) {
      double x = i * hx;
      const double h = height * (1.0 - taper * x / length);
      double y = (static_cast<double>(j) / ny - 0.5) * h;
      if (i > 0 && i < nx && j > 0 && j < ny) {
        x += 0.4 * (rng.uniform() - 0.5) * hx;
        y += 0.4 * (rng.uniform() - 0.5) * h / ny;
      }
      grid[j * (nx + 1) + i] = {x, y};
    }
  }

  // 2. renumber the nodes and the elements
  Mesh mesh;
  mesh.length_ = length;
  const std::vector<int> perm = random_permutation(nnodes, rng);
  mesh.coords.resize(nnodes);
  for (int k = 0; k < nnodes; ++k) mesh.coords[perm[k]] = grid[k];

  const std::vector<int> order = random_permutation(nx * ny, rng);
  mesh.elems.resize(nx * ny);
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) {
      const int n0 = j * (nx + 1) + i;
      mesh.elems[order[j * nx + i]] = {perm[n0], perm[n0 + 1], perm[n0 + nx + 2],
                                       perm[n0 + nx + 1]};
    }
  }

  // 3. boundary node sets in the new numbering, ordered by y
  for (int j = 0; j <= ny; ++j) {
    mesh.clamped_.push_back(perm[j * (nx + 1)]);
    mesh.loaded_.push_back(perm[j * (nx + 1) + nx]);
  }
  return mesh;
}

double Mesh::min_area() const {
  double amin = 1e300;
  for (const Quad &q : elems) {
    double a = 0.0;
    for (int k = 0; k < 4; ++k) {
      const Point &p = node(q[k]);
      const Point &r = node(q[(k + 1) % 4]);
      a += p[0] * r[1] - r[0] * p[1];
    }
    amin = std::min(amin, 0.5 * a);
  }
  return amin;
}

}  // namespace fem
