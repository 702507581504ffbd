// hydrocxx: an unstructured-mesh Lagrangian hydrodynamics code (Sedov blast).
//   usage: mpirun -np 2 hydrocxx [zones_per_side] [cycles]
// PROFILE_COMMENT
#include <cstdio>
#include <cstdlib>

#include "Driver.hh"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  RunParams p;
  p.nzx = p.nzy = argc > 1 ? std::atoi(argv[1]) : 160;
  p.cstop = argc > 2 ? std::atoi(argv[2]) : 150;
  p.lenx = p.leny = 1.0;
  p.chunksize = 1024;
  p.tstop = 1.0;
  p.dtinit = 1.e-4;
  p.dtmax = 1.e-2;
  p.dtfac = 1.2;
  p.dtreport = 25;
  {
    Driver drv("sedov", p, MPI_COMM_WORLD);
    drv.run();
  }
  MPI_Finalize();
  return 0;
}
