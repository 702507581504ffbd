/* macro.h: macroscopic fields and the force on the obstacle */
#ifndef MACRO_H
#define MACRO_H

#include "lbm.h"

/* density and velocity of the slab's cells (ghost columns unused) */
typedef struct {
  int nx_tot, ny;
  double *rho, *ux, *uy;
} Macro;

int macro_create(Macro *m, int nx_local, int ny);
void macro_free(Macro *m);
void compute_macro(const Lattice *lat, const unsigned char *solid, Macro *m);
void macro_sums(const Macro *m, const unsigned char *solid, double sums[3]);
void obstacle_force(const Lattice *lat, const unsigned char *solid, double force[2]);

#endif
