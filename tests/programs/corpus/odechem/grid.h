/* grid.h - the reacting-flow state: a 2-D grid of cells, split into slabs of
 * rows over the MPI ranks, each cell holding NVAR variables (species
 * concentrations and temperature).
 *
 * The state is stored variable by variable (structure of arrays): variable
 * v of local row r (0 and nrows + 1 are ghost rows), column c, is
 * q[QIDX(g, v, r, c)]. qnew is the transport step's output; the two are
 * swapped after every transport step.
 */
#ifndef GRID_H
#define GRID_H

#include <mpi.h>

#include "kinetics.h"

typedef struct {
  int nrows, ncols;   /* this rank's rows, all columns */
  int nrows_global;   /* rows over all ranks */
  int row0;           /* global index of local row 1 */
  double dx;          /* cell size */
  double *q;          /* NVAR * (nrows + 2) * ncols */
  double *qnew;       /* the transport step's output, same layout */
  double *hchem;      /* per cell: the chemistry step the integrator suggests */
  double diff[NVAR];  /* diffusivities */
  MPI_Comm comm;
  int rank, nprocs, up, down; /* neighbours: MPI_PROC_NULL at the walls */
} Grid;

#define PLANE(g) ((size_t)((g)->nrows + 2) * (size_t)(g)->ncols)
#define QIDX(g, v, r, c) ((size_t)(v) * PLANE(g) + (size_t)(r) * (size_t)(g)->ncols + (size_t)(c))

int grid_create(Grid *g, int nrows_global, int ncols, MPI_Comm comm);
void grid_free(Grid *g);
void grid_init_mixture(Grid *g);

/* transport.c */
void halo_exchange(Grid *g);
void transport_step(Grid *g, double dt);
double transport_stable_dt(const Grid *g);

#endif
