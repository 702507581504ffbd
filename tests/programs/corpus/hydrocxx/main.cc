// hydrocxx: an unstructured-mesh Lagrangian hydrodynamics code (a Sedov
// blast in the corner of a square, planar). A Driver owns a Hydro, which owns
// the Mesh (points, edges, zones and sides as std::vector<double2> and
// std::vector<double> members, side-to-point/zone/edge index maps, chunks of
// sides), a PolyGas equation of state, a QCS edge viscosity and a TTS
// hourglass filter. double2 has a user-written copy constructor, assignment
// and destructor, so its free operators return through a hidden result
// pointer. Each cycle: predictor geometry, EOS at the half step, side forces
// (pressure, viscosity: QCS computes hydro.sfq chunk by chunk through its
// scratch arrays c0div, c0evol, c0du, c0qe1, ...; hourglass), point forces
// summed across the ranks (MPI_Sendrecv of the shared column of points),
// corrector, full-step geometry, work and energy; then the time step from
// Courant and volume limits, reduced with MPI_Allreduce(MIN).
//   usage: mpirun -np 2 hydrocxx [zones_per_side] [cycles]   (160, 150)
//
// Expected ranking, derived from a by-function profile (perf record -F 999
// -g --call-graph dwarf of a clang-19 -O2 -g build, on a 2-core machine
// loaded by another build, load average ~4.8):
//                              1 rank (1,025)  2 ranks (2,146 samples)
//   Hydro::doCycle                  94.8%          78.4%
//    QCS::calcForce                 33.1%          16.7%   -> hydro.sfq
//      setCornerDiv 19.8% (10.6%)  c0area, c0div, c0du, c0evol, c0cos, zuc
//      setQCnForce   5.7% (2.5%)   c0rmu, c0w, c0qe1, c0qe2
//      setForce      2.0%          hydro.sfq;  setVelDiff 0.4%: hydro.zdu
//    mesh geometry                  31.6%          ~14%
//      calcCtrs 10.0%  mesh.ex/zx, exp/zxp   calcEdgeLen 9.5%  mesh.elen
//      calcVols  6.0%  sarea/zarea, sareap/zareap   calcCharLen 3.2%  zdl
//      calcSurfVecs 2.9%  ssurf
//    Hydro::calcWork                 5.8%           2.4%   zetot, zw
//    TTS::calcForce                  4.7%           1.9%   hydro.sfh
//    sumCrnrForce / sumToPoints  3.5% / 2.6%     2.2% / 1.2%  sft / pf, pmaswt
//    PolyGas (EOS, force)            5.5%           ~2.5%  zp, zss / sfp
//    Mesh::sumAcrossRanks (MPI_Sendrecv)  -        32.3%   mesh.sendbuf,
//                                                          recvbuf -> pf, pmaswt
//   Driver::calcGlobalDt (MPI_Allreduce) 1.6%      18.5%   dt (waiting, on 2)
// (two synchronisations per cycle: on the loaded machine the ranks wait for
// each other in them for about half of the 2-rank samples.)
//  main:
//  1. drv          >= 95%: everything a cycle computes is reachable from it;
//  2. drv.hydro    ~ doCycle (>= 78%);
//  3. drv.hydro.sfq >= the viscosity's share (17-33%), above every scratch
//                  array of drv.hydro.qcs (c0div, c0evol, c0area, c0du,
//                  c0cos from setCornerDiv, c0rmu, c0w, c0qe1, c0qe2: each
//                  only its part); drv.hydro.qcs itself at most sfq's share;
//  4. drv.hydro.mesh: the geometry (~14-32%): elen, ex/zx/exp/zxp,
//                  sarea/zarea/sareap/zareap, zdl, ssurf; sendbuf/recvbuf with
//                  the MPI_Sendrecv waits on 2 ranks;
//  5. the other hydro fields by their kernels: sft (sum of the side forces,
//                  so inclusively >= sfq), zetot, zw, sfh, zp, zss, sfp, pf,
//                  pmaswt, pu, px; the cycle loop makes each cycle's fields
//                  depend on the last, so inclusive blame may lift them, never
//                  above drv.hydro.
// Must not rank high: drv.tbegin, drv.tcycles, drv.tdt, drv.treport
// (wall-clock timers), drv.cycle, drv.time (sum of the steps), drv.dt,
// drv.dtlast (derived scalars from the reduction), drv.e0, hydro.dtrec,
// hydro.dtreczone, mesh.numbad (counter), drv.comm, drv.rank, drv.nranks,
// drv.params and p (parameters, read only), drv.probname. No rows for the
// double2 temporaries of the operators.
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
