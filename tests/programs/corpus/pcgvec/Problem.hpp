// Problem.hpp - the model problem: steady heat conduction in a block of
// layered, anisotropic material, discretized with 7-point finite volumes.
#pragma once

#include "CsrMatrix.hpp"
#include "Vector.hpp"

namespace pcg {

struct Grid {
  int nx, ny, nz;
  double h;
  int size() const { return nx * ny * nz; }
  int index(int i, int j, int k) const { return (k * ny + j) * nx + i; }
};

struct HeatSource {
  double x, y, z;   // centre, in [0,1]^3
  double radius;
  double power;
};

// conductivity at a point: layers in z, faster across x
double conductivity(double x, double y, double z);

// -div(kappa grad u) with u = 0 on the boundary of the unit cube
CsrMatrix assemble_conduction(const Grid &g);

// b_i = cell volume * source density at cell i
void fill_source(const Grid &g, const HeatSource &src, Vector &b);

} // namespace pcg
