/* halo.h: ghost-column exchange between neighbouring x-slabs */
#ifndef HALO_H
#define HALO_H

#include <mpi.h>
#include "lbm.h"

typedef struct {
  MPI_Datatype east;      /* populations with c_x = +1 (1, 5, 8) of a column */
  MPI_Datatype west;      /* populations with c_x = -1 (3, 6, 7) of a column */
  MPI_Request req[4];
  MPI_Comm comm;
  long nexchange;
} Halo;

int halo_create(Halo *h, const Lattice *lat, MPI_Comm comm);
void halo_exchange(Halo *h, Lattice *lat);
void halo_free(Halo *h);

#endif
