#include <math.h>
#include <stdlib.h>

#include "geometry.h"

void mesh_init(Mesh *m, int nx, int ny, int nz, double pitch) {
  m->nx = nx;
  m->ny = ny;
  m->nz = nz;
  m->pitch = pitch;
  m->lx = nx * pitch;
  m->ly = ny * pitch;
  m->lz = nz * pitch;
  m->material = malloc((size_t)nx * ny * nz * sizeof(int));
  m->fuel_cells = malloc((size_t)nx * ny * nz * sizeof(int));
  m->n_fuel = 0;
  for (int k = 0; k < nz; k++)
    for (int j = 0; j < ny; j++)
      for (int i = 0; i < nx; i++) {
        int c = (k * ny + j) * nx + i;
        int edge = i == 0 || j == 0 || i == nx - 1 || j == ny - 1;
        int pin = (i % 2 == 1) && (j % 2 == 1) && k > 0 && k < nz - 1;
        if (edge)
          m->material[c] = MAT_CLAD;
        else if (pin)
          m->material[c] = MAT_FUEL;
        else
          m->material[c] = MAT_WATER;
        if (m->material[c] == MAT_FUEL)
          m->fuel_cells[m->n_fuel++] = c;
      }
}

void mesh_free(Mesh *m) {
  free(m->material);
  free(m->fuel_cells);
}

int mesh_cell(const Mesh *m, double x, double y, double z) {
  if (x < 0.0 || y < 0.0 || z < 0.0 || x >= m->lx || y >= m->ly || z >= m->lz)
    return -1;
  int i = (int)(x / m->pitch), j = (int)(y / m->pitch), k = (int)(z / m->pitch);
  return (k * m->ny + j) * m->nx + i;
}

void mesh_cell_center(const Mesh *m, int cell, double *x, double *y, double *z) {
  int i = cell % m->nx;
  int j = (cell / m->nx) % m->ny;
  int k = cell / (m->nx * m->ny);
  *x = (i + 0.5) * m->pitch;
  *y = (j + 0.5) * m->pitch;
  *z = (k + 0.5) * m->pitch;
}

/* Distance along the particle's direction to the faces of its cell. */
double distance_to_boundary(const Mesh *m, const Particle *p) {
  int i = p->cell % m->nx;
  int j = (p->cell / m->nx) % m->ny;
  int k = p->cell / (m->nx * m->ny);
  double d = INFINITY;
  if (p->u > 0.0)
    d = fmin(d, ((i + 1) * m->pitch - p->x) / p->u);
  else if (p->u < 0.0)
    d = fmin(d, (i * m->pitch - p->x) / p->u);
  if (p->v > 0.0)
    d = fmin(d, ((j + 1) * m->pitch - p->y) / p->v);
  else if (p->v < 0.0)
    d = fmin(d, (j * m->pitch - p->y) / p->v);
  if (p->w > 0.0)
    d = fmin(d, ((k + 1) * m->pitch - p->z) / p->w);
  else if (p->w < 0.0)
    d = fmin(d, (k * m->pitch - p->z) / p->w);
  return d < 0.0 ? 0.0 : d;
}
