// cgbench: the process grid and the local box of grid points.
#ifndef CGBENCH_GEOMETRY_HPP
#define CGBENCH_GEOMETRY_HPP

// the C bindings only, as C++ MPI codes build them
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

typedef int local_int_t;
typedef long long global_int_t;

// The global grid is nx x ny x (nz * size) points; rank r owns the slab of
// planes r*nz .. r*nz+nz-1.
struct Geometry {
  int size;          // ranks
  int rank;
  local_int_t nx, ny, nz;
  global_int_t gnz;  // planes of the global grid
  global_int_t iz0;  // first global plane of this rank
};

double mytimer();

#endif
