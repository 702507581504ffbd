// hydrocxx: the cycle loop with the time step control.
#include "Driver.hh"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "Hydro.hh"
#include "Mesh.hh"

static double wtime() { return MPI_Wtime(); }

Driver::Driver(const std::string &name, const RunParams &p, MPI_Comm c)
    : probname(name), params(p), comm(c), time(0.), dt(0.), dtlast(0.), cycle(0), tbegin(0.),
      tcycles(0.), tdt(0.), treport(0.), e0(0.) {
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  // a quarter of a unit-energy blast, at the corner of the mesh
  hydro = new Hydro(new Mesh(p.nzx, p.nzy, p.lenx, p.leny, p.chunksize, comm), 1.0, 1.e-6, 0.25,
                    0.05, 0.6, 0.1);
  if (rank == 0)
    std::printf("hydrocxx: %s, %d x %d zones on %d ranks, %d sides per chunk\n", probname.c_str(),
                p.nzx, p.nzy, nranks, p.chunksize);
}

Driver::~Driver() {
  delete hydro;
}

double Driver::totalEnergy(double &ei, double &ek) {
  double loc[2], glob[2];
  hydro->sumEnergy(loc[0], loc[1]);
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, comm);
  ei = glob[0];
  ek = glob[1];
  return ei + ek;
}

void Driver::calcGlobalDt() {
  dtlast = dt;
  if (cycle == 0) {
    dt = params.dtinit;
    return;
  }
  dt = std::min(params.dtmax, params.dtfac * dtlast);
  double dth;
  hydro->getDtHydro(dtlast, dth);
  dt = std::min(dt, dth);
  if (time + dt > params.tstop)
    dt = params.tstop - time;
  double dtg;
  MPI_Allreduce(&dt, &dtg, 1, MPI_DOUBLE, MPI_MIN, comm);
  dt = dtg;
}

void Driver::run() {
  double ei, ek;
  e0 = totalEnergy(ei, ek);
  tbegin = wtime();
  while (cycle < params.cstop && time < params.tstop) {
    double t0 = wtime();
    calcGlobalDt();
    tdt += wtime() - t0;

    t0 = wtime();
    hydro->doCycle(dt);
    tcycles += wtime() - t0;
    time += dt;
    cycle++;

    if (cycle % params.dtreport == 0) {
      t0 = wtime();
      double et = totalEnergy(ei, ek);
      if (rank == 0)
        std::printf("  cycle %5d  t = %.6e  dt = %.4e  Ei = %.8f  Ek = %.8f  dE/E = %.2e\n", cycle,
                    time, dt, ei, ek, (et - e0) / e0);
      treport += wtime() - t0;
    }
  }
  double tend = wtime();
  double et = totalEnergy(ei, ek);
  int bad = hydro->mesh->numbad, gbad;
  MPI_Reduce(&bad, &gbad, 1, MPI_INT, MPI_SUM, 0, comm);
  if (rank == 0) {
    std::printf("hydrocxx: %d cycles to t = %.6e; energy %.10f (internal %.10f, kinetic %.10f), "
                "drift %.2e%s\n",
                cycle, time, et, ei, ek, (et - e0) / e0, gbad ? ", INVERTED SIDES" : "");
    std::printf("hydrocxx: %.3f s: cycles %.3f, dt %.3f, reports %.3f\n", tend - tbegin, tcycles,
                tdt, treport);
  }
}
