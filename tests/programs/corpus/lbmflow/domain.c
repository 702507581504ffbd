/* domain.c: the global configuration g_dom, the x-slab decomposition and the
 * obstacle mask (channel walls and a cylinder). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "lbm.h"

Domain g_dom;

int domain_setup(int nx, int ny, double reynolds, double u_max, int steps,
                 int out_every, int rank, int nranks)
{
  Domain *d = &g_dom;
  d->nx = nx;
  d->ny = ny;
  d->rank = rank;
  d->nranks = nranks;

  /* x-slabs: the first nx % nranks ranks take one column more */
  int base = nx / nranks, extra = nx % nranks;
  d->nx_local = base + (rank < extra ? 1 : 0);
  d->x0 = rank * base + (rank < extra ? rank : extra);
  d->left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  d->right = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;
  if (d->nx_local < 2 || ny < 8)
    return -1;

  /* a cylinder a fifth of the way down the channel, slightly off the
   * centre line so that the wake breaks symmetry and sheds */
  d->cyl_r = ny / 10.0;
  d->cyl_x = nx / 5.0;
  d->cyl_y = ny / 2.0 + 0.7;

  /* Reynolds number on the cylinder diameter and the mean inlet speed */
  d->u_max = u_max;
  d->reynolds = reynolds;
  d->nu = (2.0 / 3.0) * u_max * (2.0 * d->cyl_r) / reynolds;
  d->omega = 1.0 / (3.0 * d->nu + 0.5);
  d->steps = steps;
  d->out_every = out_every;
  return 0;
}

/* Poiseuille profile between the half-way walls at y = 0.5 and ny - 1.5 */
double inlet_velocity(int y)
{
  double h = g_dom.ny - 2.0, s = y - 0.5;
  if (y <= 0 || y >= g_dom.ny - 1)
    return 0.0;
  return 4.0 * g_dom.u_max * s * (h - s) / (h * h);
}

/* The mask covers the slab and its ghost columns (their global columns),
 * so that bounce-back across the slab boundary sees the neighbour's cells. */
unsigned char *obstacle_create(void)
{
  const int nx_tot = g_dom.nx_local + 2, ny = g_dom.ny;
  unsigned char *solid = calloc((size_t)nx_tot * (size_t)ny, 1);
  if (solid == NULL)
    return NULL;
  for (int y = 0; y < ny; y++) {
    for (int x = 0; x < nx_tot; x++) {
      double gx = g_dom.x0 + x - 1 + 0.5, gy = y + 0.5;
      double dx = gx - g_dom.cyl_x, dy = gy - g_dom.cyl_y;
      if (y == 0 || y == ny - 1)
        solid[CELL(x, y)] = WALL;
      else if (dx * dx + dy * dy <= g_dom.cyl_r * g_dom.cyl_r)
        solid[CELL(x, y)] = OBSTACLE;
    }
  }
  return solid;
}
