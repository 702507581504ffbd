/* grid.c - allocation of the distributed grid and the initial state: a
 * premixed hydrogen-oxygen-nitrogen mixture at rest, with hot kernels
 * (ignition spots) whose temperature falls off as a Gaussian.
 */
#include "grid.h"

#include <math.h>
#include <stdlib.h>

int grid_create(Grid *g, int nrows_global, int ncols, MPI_Comm comm) {
  g->comm = comm;
  MPI_Comm_rank(comm, &g->rank);
  MPI_Comm_size(comm, &g->nprocs);
  if (nrows_global % g->nprocs != 0 || ncols < 3)
    return -1;
  g->nrows_global = nrows_global;
  g->nrows = nrows_global / g->nprocs;
  g->ncols = ncols;
  g->row0 = g->rank * g->nrows;
  g->dx = 1.0 / ncols;
  g->up = g->rank > 0 ? g->rank - 1 : MPI_PROC_NULL;
  g->down = g->rank < g->nprocs - 1 ? g->rank + 1 : MPI_PROC_NULL;
  g->q = calloc((size_t)NVAR * PLANE(g), sizeof(double));
  g->qnew = calloc((size_t)NVAR * PLANE(g), sizeof(double));
  g->hchem = calloc((size_t)g->nrows * (size_t)ncols, sizeof(double));
  if (!g->q || !g->qnew || !g->hchem)
    return -1;
  for (int v = 0; v < NSPEC; v++)
    g->diff[v] = 2.0e-3;
  g->diff[S_H] = 8.0e-3; /* light radicals diffuse faster */
  g->diff[S_H2] = 6.0e-3;
  g->diff[I_T] = 4.0e-3;
  return 0;
}

void grid_free(Grid *g) {
  free(g->q);
  free(g->qnew);
  free(g->hchem);
  g->q = g->qnew = g->hchem = NULL;
}

void grid_init_mixture(Grid *g) {
  static const double spots[3][3] = {
      /* centre row, centre column (fractions of the domain), radius */
      {0.30, 0.35, 0.08},
      {0.55, 0.70, 0.06},
      {0.75, 0.30, 0.07},
  };
  for (int r = 1; r <= g->nrows; r++) {
    const double y = (g->row0 + r - 0.5) / g->nrows_global;
    for (int c = 0; c < g->ncols; c++) {
      const double x = (c + 0.5) / g->ncols;
      double T = 1.0;
      for (int s = 0; s < 3; s++) {
        const double dy = y - spots[s][0], dx = x - spots[s][1];
        const double d2 = (dx * dx + dy * dy) / (spots[s][2] * spots[s][2]);
        T += 3.0 * exp(-d2);
      }
      g->q[QIDX(g, S_H2, r, c)] = 2.0;
      g->q[QIDX(g, S_O2, r, c)] = 1.0;
      g->q[QIDX(g, S_N2, r, c)] = 3.76;
      g->q[QIDX(g, I_T, r, c)] = T;
      g->hchem[(size_t)(r - 1) * (size_t)g->ncols + (size_t)c] = 0.0;
    }
  }
}
