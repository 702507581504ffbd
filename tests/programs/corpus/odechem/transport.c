/* transport.c - the transport step between chemistry steps: explicit
 * diffusion of every variable with a 5-point stencil, after a halo
 * exchange of the ghost rows with the ranks above and below (MPI_Sendrecv,
 * one variable at a time); zero-flux walls on every side.
 */
#include "grid.h"

#include <string.h>

void halo_exchange(Grid *g) {
  const int nc = g->ncols;
  for (int v = 0; v < NVAR; v++) {
    double *first = &g->q[QIDX(g, v, 1, 0)];
    double *last = &g->q[QIDX(g, v, g->nrows, 0)];
    double *ghost_up = &g->q[QIDX(g, v, 0, 0)];
    double *ghost_down = &g->q[QIDX(g, v, g->nrows + 1, 0)];
    /* send the first row up, receive the ghost row below from down */
    MPI_Sendrecv(first, nc, MPI_DOUBLE, g->up, 10 + v, ghost_down, nc,
                 MPI_DOUBLE, g->down, 10 + v, g->comm, MPI_STATUS_IGNORE);
    /* send the last row down, receive the ghost row above from up */
    MPI_Sendrecv(last, nc, MPI_DOUBLE, g->down, 40 + v, ghost_up, nc,
                 MPI_DOUBLE, g->up, 40 + v, g->comm, MPI_STATUS_IGNORE);
    /* walls: mirror the boundary row (zero flux) */
    if (g->up == MPI_PROC_NULL)
      memcpy(ghost_up, first, (size_t)nc * sizeof(double));
    if (g->down == MPI_PROC_NULL)
      memcpy(ghost_down, last, (size_t)nc * sizeof(double));
  }
}

double transport_stable_dt(const Grid *g) {
  double dmax = 0.0;
  for (int v = 0; v < NVAR; v++)
    if (g->diff[v] > dmax)
      dmax = g->diff[v];
  return 0.2 * g->dx * g->dx / dmax;
}

void transport_step(Grid *g, double dt) {
  const int nc = g->ncols;
  const double inv_dx2 = 1.0 / (g->dx * g->dx);
  halo_exchange(g);
  for (int v = 0; v < NVAR; v++) {
    const double f = g->diff[v] * dt * inv_dx2;
    for (int r = 1; r <= g->nrows; r++) {
      const double *up = &g->q[QIDX(g, v, r - 1, 0)];
      const double *mid = &g->q[QIDX(g, v, r, 0)];
      const double *down = &g->q[QIDX(g, v, r + 1, 0)];
      double *out = &g->qnew[QIDX(g, v, r, 0)];
      out[0] = mid[0] + f * (up[0] + down[0] + mid[1] - 3.0 * mid[0]);
      for (int c = 1; c < nc - 1; c++)
        out[c] = mid[c] + f * (up[c] + down[c] + mid[c - 1] + mid[c + 1] - 4.0 * mid[c]);
      out[nc - 1] = mid[nc - 1] + f * (up[nc - 1] + down[nc - 1] + mid[nc - 2] -
                                       3.0 * mid[nc - 1]);
    }
  }
  double *tmp = g->q;
  g->q = g->qnew;
  g->qnew = tmp;
}
