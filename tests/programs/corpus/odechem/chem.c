/* chem.c - operator-split chemistry: every cell is a constant-volume
 * reactor integrated on its own over the step, with the cell's variables
 * gathered into a contiguous vector, integrated by the generic integrator
 * with the kinetics right-hand side, and scattered back. The step size the
 * integrator suggests is kept per cell for the next step.
 */
#include "chem.h"

#include <stdio.h>

#define T_IGNITION 1.5

void chemistry_step(Grid *g, OdeIntegrator *ode, KinCtx *kin, double dt,
                    ChemCounters *counters) {
  double ycell[NVAR];
  for (int r = 1; r <= g->nrows; r++) {
    for (int c = 0; c < g->ncols; c++) {
      for (int v = 0; v < NVAR; v++)
        ycell[v] = g->q[QIDX(g, v, r, c)];
      /* third-body efficiency: the diluent and water are good colliders */
      kin->dilution = 1.0 + 0.2 * ycell[S_N2] + 0.8 * ycell[S_H2O];
      double *h = &g->hchem[(size_t)(r - 1) * (size_t)g->ncols + (size_t)c];
      if (ode_integrate(ode, kinetics_rhs, kin, 0.0, dt, ycell, h) != 0)
        counters->failed++;
      counters->cells++;
      if (ycell[I_T] > T_IGNITION)
        counters->hot_cells++;
      for (int v = 0; v < NVAR; v++)
        g->q[QIDX(g, v, r, c)] = ycell[v];
    }
  }
}
