/* chem.h - the chemistry step over the grid and the diagnostics. */
#ifndef CHEM_H
#define CHEM_H

#include "grid.h"
#include "ode.h"

typedef struct {
  long cells;       /* cell integrations */
  long failed;      /* integrations that hit the step limit */
  long hot_cells;   /* cells above the ignition temperature */
} ChemCounters;

/* Integrates the chemistry of every cell over dt, in place. */
void chemistry_step(Grid *g, OdeIntegrator *ode, KinCtx *kin, double dt,
                    ChemCounters *counters);

typedef struct {
  double min[NVAR], max[NVAR], mean[NVAR];
} Diagnostics;

/* Global min, max and mean of every variable over the interior cells. */
void compute_diagnostics(const Grid *g, Diagnostics *d);
void print_diagnostics(const Diagnostics *d, const Mechanism *mech, int step,
                       double time);

#endif
