/* lattice.c: the D2Q9 velocity set, lattice allocation and the equilibrium
 * initial state. */
#include <math.h>
#include <stdlib.h>
#include "lbm.h"

const int CX[Q] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
const int CY[Q] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
const int OPP[Q] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
const double W[Q] = {4.0 / 9.0,  1.0 / 9.0,  1.0 / 9.0,  1.0 / 9.0, 1.0 / 9.0,
                     1.0 / 36.0, 1.0 / 36.0, 1.0 / 36.0, 1.0 / 36.0};

Lattice *lattice_create(int nx_local, int ny)
{
  Lattice *lat = malloc(sizeof *lat);
  if (lat == NULL)
    return NULL;
  lat->nx_tot = nx_local + 2;
  lat->ny_tot = ny;
  lat->f = calloc((size_t)Q * (size_t)lat->nx_tot * (size_t)lat->ny_tot, sizeof(double));
  if (lat->f == NULL) {
    free(lat);
    return NULL;
  }
  return lat;
}

void lattice_free(Lattice *lat)
{
  if (lat != NULL) {
    free(lat->f);
    free(lat);
  }
}

void equilibrium(double rho, double ux, double uy, double feq[Q])
{
  double usq = 1.5 * (ux * ux + uy * uy);
  for (int q = 0; q < Q; q++) {
    double cu = 3.0 * (CX[q] * ux + CY[q] * uy);
    feq[q] = W[q] * rho * (1.0 + cu + 0.5 * cu * cu - usq);
  }
}

/* Equilibrium at rest density with the inlet profile everywhere in the
 * fluid (a small deterministic transverse kick behind the cylinder helps
 * the wake to shed earlier), zero velocity in solid cells. */
void lattice_init(Lattice *lat, const unsigned char *solid)
{
  const double pi = 3.14159265358979323846;
  double feq[Q];
  for (int y = 0; y < lat->ny_tot; y++) {
    for (int x = 0; x < lat->nx_tot; x++) {
      double ux = 0.0, uy = 0.0;
      if (solid[CELL(x, y)] == FLUID) {
        double gx = g_dom.x0 + x - 1;
        ux = inlet_velocity(y);
        uy = 0.01 * g_dom.u_max * sin(2.0 * pi * gx / g_dom.nx) *
             exp(-fabs(gx - g_dom.cyl_x - 2.0 * g_dom.cyl_r) / g_dom.ny);
      }
      equilibrium(1.0, ux, uy, feq);
      for (int q = 0; q < Q; q++)
        F(lat, q, x, y) = feq[q];
    }
  }
}
