/* diag.c - global diagnostics of the state: min, max and mean of every
 * variable over the interior cells, reduced over the ranks. */
#include "chem.h"

#include <float.h>
#include <stdio.h>

void compute_diagnostics(const Grid *g, Diagnostics *d) {
  double lmin[NVAR], lmax[NVAR], lsum[NVAR];
  for (int v = 0; v < NVAR; v++) {
    lmin[v] = DBL_MAX;
    lmax[v] = -DBL_MAX;
    lsum[v] = 0.0;
    for (int r = 1; r <= g->nrows; r++) {
      const double *row = &g->q[QIDX(g, v, r, 0)];
      for (int c = 0; c < g->ncols; c++) {
        if (row[c] < lmin[v])
          lmin[v] = row[c];
        if (row[c] > lmax[v])
          lmax[v] = row[c];
        lsum[v] += row[c];
      }
    }
  }
  MPI_Allreduce(lmin, d->min, NVAR, MPI_DOUBLE, MPI_MIN, g->comm);
  MPI_Allreduce(lmax, d->max, NVAR, MPI_DOUBLE, MPI_MAX, g->comm);
  MPI_Allreduce(lsum, d->mean, NVAR, MPI_DOUBLE, MPI_SUM, g->comm);
  const double ncells = (double)g->nrows_global * (double)g->ncols;
  for (int v = 0; v < NVAR; v++)
    d->mean[v] /= ncells;
}

void print_diagnostics(const Diagnostics *d, const Mechanism *mech, int step,
                       double time) {
  printf("step %4d  t = %.4e\n", step, time);
  printf("  %-4s %12s %12s %12s\n", "var", "min", "max", "mean");
  for (int v = 0; v < NVAR; v++)
    printf("  %-4s %12.5e %12.5e %12.5e\n", v < NSPEC ? mech->names[v] : "T",
           d->min[v], d->max[v], d->mean[v]);
}
