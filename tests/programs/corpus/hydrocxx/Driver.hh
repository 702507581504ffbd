// hydrocxx: the driver owns the hydro (which owns the mesh) and runs the
// cycle loop.
#ifndef HYDROCXX_DRIVER_HH
#define HYDROCXX_DRIVER_HH

// the C bindings of MPI only
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <string>

class Hydro;

struct RunParams {
  int nzx, nzy;       // zones of the global mesh
  double lenx, leny;  // its size
  int chunksize;      // sides per chunk
  int cstop;          // last cycle
  double tstop;       // last time
  double dtinit, dtmax, dtfac;
  int dtreport;       // cycles between reports
};

class Driver {
public:
  std::string probname;
  RunParams params;
  MPI_Comm comm;
  int rank, nranks;
  Hydro *hydro;
  double time, dt, dtlast;
  int cycle;
  // wall-clock bookkeeping
  double tbegin, tcycles, tdt, treport;
  double e0;  // total energy at the start

  Driver(const std::string &name, const RunParams &p, MPI_Comm c);
  ~Driver();
  void run();

private:
  void calcGlobalDt();
  double totalEnergy(double &ei, double &ek);
};

#endif
