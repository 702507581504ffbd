/* macro.c: density and velocity fields from the distributions, their sums
 * for the diagnostics, and the force of the fluid on the cylinder by
 * momentum exchange over the bounce-back links. */
#include <math.h>
#include <stdlib.h>
#include "macro.h"

int macro_create(Macro *m, int nx_local, int ny)
{
  size_t n = (size_t)(nx_local + 2) * (size_t)ny;
  m->nx_tot = nx_local + 2;
  m->ny = ny;
  m->rho = calloc(n, sizeof(double));
  m->ux = calloc(n, sizeof(double));
  m->uy = calloc(n, sizeof(double));
  return (m->rho && m->ux && m->uy) ? 0 : -1;
}

void macro_free(Macro *m)
{
  free(m->rho);
  free(m->ux);
  free(m->uy);
  m->rho = m->ux = m->uy = NULL;
}

/* BGK conserves mass and momentum, so the post-collision distributions of
 * src give the moments of the last step. */
void compute_macro(const Lattice *lat, const unsigned char *solid, Macro *m)
{
  const int nx = g_dom.nx_local;
  for (int y = 0; y < m->ny; y++) {
    for (int x = 1; x <= nx; x++) {
      size_t c = CELL(x, y);
      if (solid[c] != FLUID) {
        m->rho[c] = 1.0;
        m->ux[c] = m->uy[c] = 0.0;
        continue;
      }
      double rho = 0.0, jx = 0.0, jy = 0.0;
      for (int q = 0; q < Q; q++) {
        double fq = F(lat, q, x, y);
        rho += fq;
        jx += CX[q] * fq;
        jy += CY[q] * fq;
      }
      m->rho[c] = rho;
      m->ux[c] = jx / rho;
      m->uy[c] = jy / rho;
    }
  }
}

/* mass and kinetic energy of the fluid cells, and the largest speed */
void macro_sums(const Macro *m, const unsigned char *solid, double sums[3])
{
  const int nx = g_dom.nx_local;
  double mass = 0.0, energy = 0.0, umax = 0.0;
  for (int y = 0; y < m->ny; y++) {
    for (int x = 1; x <= nx; x++) {
      size_t c = CELL(x, y);
      if (solid[c] != FLUID)
        continue;
      double u2 = m->ux[c] * m->ux[c] + m->uy[c] * m->uy[c];
      mass += m->rho[c];
      energy += 0.5 * m->rho[c] * u2;
      if (u2 > umax)
        umax = u2;
    }
  }
  sums[0] = mass;
  sums[1] = energy;
  sums[2] = sqrt(umax);
}

/* Each fluid cell next to the cylinder sends f_q into it and gets it back
 * reversed: the cylinder takes 2 c_q f_q of momentum per link and step. */
void obstacle_force(const Lattice *lat, const unsigned char *solid, double force[2])
{
  const int nx = g_dom.nx_local, ny = g_dom.ny;
  double fx = 0.0, fy = 0.0;
  for (int y = 1; y < ny - 1; y++) {
    for (int x = 1; x <= nx; x++) {
      if (solid[CELL(x, y)] != FLUID)
        continue;
      for (int q = 1; q < Q; q++) {
        if (solid[CELL(x + CX[q], y + CY[q])] != OBSTACLE)
          continue;
        double fq = F(lat, q, x, y);
        fx += 2.0 * CX[q] * fq;
        fy += 2.0 * CY[q] * fq;
      }
    }
  }
  force[0] = fx;
  force[1] = fy;
}
