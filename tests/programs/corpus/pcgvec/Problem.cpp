// Problem.cpp - assembly of the conduction matrix and the source terms.
#include "Problem.hpp"

#include <cmath>

namespace pcg {

double conductivity(double x, double y, double z) {
  const double layer = 0.5 + 0.5 * std::sin(8.0 * M_PI * z);
  return (1.0 + 4.0 * layer * layer) * (1.0 + 0.3 * std::cos(3.0 * M_PI * x * y));
}

namespace {

// harmonic mean of the conductivities of two neighbouring cells
inline double face_coefficient(double ka, double kb) { return 2.0 * ka * kb / (ka + kb); }

} // namespace

CsrMatrix assemble_conduction(const Grid &g) {
  const int n = g.size();
  const double h = g.h;
  // anisotropy: conduction along x is stronger than along y and z
  const double ax = 4.0, ay = 1.0, az = 0.5;
  CsrMatrix::Builder builder(n, 7 * n);
  for (int k = 0; k < g.nz; ++k) {
    for (int j = 0; j < g.ny; ++j) {
      for (int i = 0; i < g.nx; ++i) {
        const double xc = (i + 0.5) * h, yc = (j + 0.5) * h, zc = (k + 0.5) * h;
        const double kc = conductivity(xc, yc, zc);
        double diag = 0.0;
        struct Neighbour {
          int di, dj, dk;
          double aniso;
        };
        const Neighbour nbs[6] = {{-1, 0, 0, ax}, {1, 0, 0, ax}, {0, -1, 0, ay},
                                  {0, 1, 0, ay},  {0, 0, -1, az}, {0, 0, 1, az}};
        for (const auto &nb : nbs) {
          const int ii = i + nb.di, jj = j + nb.dj, kk = k + nb.dk;
          const double kn = conductivity(xc + nb.di * h, yc + nb.dj * h, zc + nb.dk * h);
          const double c = nb.aniso * face_coefficient(kc, kn);
          diag += c;
          if (ii < 0 || ii >= g.nx || jj < 0 || jj >= g.ny || kk < 0 || kk >= g.nz)
            continue; // Dirichlet boundary: the coupling moves to the diagonal
          builder.add(g.index(ii, jj, kk), -c);
        }
        builder.add(g.index(i, j, k), diag);
        builder.end_row();
      }
    }
  }
  return builder.build();
}

void fill_source(const Grid &g, const HeatSource &src, Vector &b) {
  const double h = g.h;
  const double r2 = src.radius * src.radius;
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i) {
        const double dx = (i + 0.5) * h - src.x;
        const double dy = (j + 0.5) * h - src.y;
        const double dz = (k + 0.5) * h - src.z;
        const double d2 = dx * dx + dy * dy + dz * dz;
        b[static_cast<std::size_t>(g.index(i, j, k))] =
            h * h * src.power * std::exp(-d2 / r2) + h * h * 0.01;
      }
}

} // namespace pcg
