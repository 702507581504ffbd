// Mesh construction and geometry (another translation unit).
#include "mesh.h"

#include <cmath>

void Mesh::build(int nx, int ny) {
  nodes.resize(static_cast<std::size_t>(nx + 1) * (ny + 1));
  for (int j = 0; j <= ny; j++)
    for (int i = 0; i <= nx; i++) {
      double x = double(i) / nx, y = double(j) / ny;
      Node &p = nodes[static_cast<std::size_t>(j) * (nx + 1) + i];
      p.x[0] = x + 0.02 * std::sin(6.0 * y);
      p.x[1] = y + 0.02 * std::sin(6.0 * x);
    }
  cells.resize(static_cast<std::size_t>(nx) * ny);
  for (int j = 0; j < ny; j++)
    for (int i = 0; i < nx; i++) {
      Cell &c = cells[static_cast<std::size_t>(j) * nx + i];
      int n0 = j * (nx + 1) + i;
      c.n = {n0, n0 + 1, n0 + nx + 2, n0 + nx + 1};
      c.nbr = {j > 0 ? (j - 1) * nx + i : -1, i < nx - 1 ? j * nx + i + 1 : -1,
               j < ny - 1 ? (j + 1) * nx + i : -1, i > 0 ? j * nx + i - 1 : -1};
      const Node &a = nodes[c.n[0]], &b = nodes[c.n[1]], &cc = nodes[c.n[2]], &d = nodes[c.n[3]];
      c.area = 0.5 * std::fabs((cc.x[0] - a.x[0]) * (d.x[1] - b.x[1]) - (d.x[0] - b.x[0]) * (cc.x[1] - a.x[1]));
    }
}

double Mesh::edgeLength(const Cell &c, int k) const {
  const Node &a = nodes[c.n[k]];
  const Node &b = nodes[c.n[(k + 1) & 3]];
  return std::hypot(b.x[0] - a.x[0], b.x[1] - a.x[1]);
}
