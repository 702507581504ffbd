/* collide.c: the fused pull-stream / BGK-collide kernel and the physical
 * boundaries of the slab's ghost columns.
 *
 * src holds post-collision distributions of the previous step, its ghost
 * columns filled by the halo exchange (or by apply_boundaries at the inlet
 * and outlet). Each fluid cell pulls f_q from its upstream neighbour
 * x - c_q; when that neighbour is solid the population is the one that
 * left the cell towards it, reflected (half-way bounce-back). The moments
 * are computed into local scalars and the relaxed distributions written
 * to dst. */
#include "lbm.h"

/* Inlet: the left ghost column of the first slab holds the equilibrium of
 * the Poiseuille profile. Outlet: the right ghost column of the last slab
 * copies the last interior column (zero gradient). */
void apply_boundaries(Lattice *lat)
{
  const int nx = g_dom.nx_local, ny = g_dom.ny;
  if (g_dom.x0 == 0) {
    double feq[Q];
    for (int y = 0; y < ny; y++) {
      equilibrium(1.0, inlet_velocity(y), 0.0, feq);
      for (int q = 0; q < Q; q++)
        F(lat, q, 0, y) = feq[q];
    }
  }
  if (g_dom.x0 + nx == g_dom.nx) {
    for (int q = 0; q < Q; q++)
      for (int y = 0; y < ny; y++)
        F(lat, q, nx + 1, y) = F(lat, q, nx, y);
  }
}

/* the distributions arriving at fluid cell (x, y) */
static inline void gather(const Lattice *src, const unsigned char *solid,
                          int x, int y, double fin[Q])
{
  for (int q = 0; q < Q; q++) {
    int xs = x - CX[q], ys = y - CY[q];
    if (solid[CELL(xs, ys)] != FLUID)
      fin[q] = F(src, OPP[q], x, y);
    else
      fin[q] = F(src, q, xs, ys);
  }
}

void collide_stream(const Lattice *src, Lattice *dst, const unsigned char *solid)
{
  const int nx = g_dom.nx_local, ny = g_dom.ny;
  const double omega = g_dom.omega;

  for (int y = 1; y < ny - 1; y++) {
    for (int x = 1; x <= nx; x++) {
      if (solid[CELL(x, y)] != FLUID)
        continue;
      double fin[Q];
      gather(src, solid, x, y, fin);

      double rho = fin[0] + fin[1] + fin[2] + fin[3] + fin[4] + fin[5] + fin[6] +
                   fin[7] + fin[8];
      double inv = 1.0 / rho;
      double ux = (fin[1] + fin[5] + fin[8] - fin[3] - fin[6] - fin[7]) * inv;
      double uy = (fin[2] + fin[5] + fin[6] - fin[4] - fin[7] - fin[8]) * inv;
      double usq = 1.5 * (ux * ux + uy * uy);

      for (int q = 0; q < Q; q++) {
        double cu = 3.0 * (CX[q] * ux + CY[q] * uy);
        double feq = W[q] * rho * (1.0 + cu + 0.5 * cu * cu - usq);
        F(dst, q, x, y) = fin[q] + omega * (feq - fin[q]);
      }
    }
  }
}
