/* geometry.h: a box of cubic cells (a pin lattice: fuel cells in water,
 * a cladding baffle around the core), vacuum outside. */
#ifndef VTRANS_GEOMETRY_H
#define VTRANS_GEOMETRY_H

#include "particle.h"

typedef struct {
  int nx, ny, nz;
  double pitch;   /* cell width (cm) */
  double lx, ly, lz;
  int *material;  /* [nx * ny * nz] */
  int n_fuel;
  int *fuel_cells; /* indices of the fuel cells, for the initial source */
} Mesh;

void mesh_init(Mesh *m, int nx, int ny, int nz, double pitch);
void mesh_free(Mesh *m);
int mesh_cell(const Mesh *m, double x, double y, double z);
double distance_to_boundary(const Mesh *m, const Particle *p);
void mesh_cell_center(const Mesh *m, int cell, double *x, double *y, double *z);

#endif
