/* mdlink: Lennard-Jones molecular dynamics with link cells, an FCC lattice
 * of cells^3 unit cells sliced along x over the ranks. Every step: velocity
 * Verlet (integrate.c); the ghost positions refreshed through the send lists
 * of six swaps (comm.c: MPI_Irecv/MPI_Isend/MPI_Waitall with the x partner,
 * periodic copies in y and z); forces over a half neighbour list (force.c).
 * Every 20 steps the atoms that left are migrated and the ghosts, link cells
 * and neighbour list rebuilt (comm.c, neighbor.c; counts by MPI_Sendrecv);
 * every 20 steps the energies are reduced with MPI_Allreduce (thermo).
 * Timers in the global `double timers[8]`, counters and thermodynamic
 * statistics in `Stats stats`.
 *   usage: mpirun -np 2 mdlink [cells] [steps]      (defaults 20 and 60)
 *
 * Expected ranking, derived from a by-function profile (perf record -F 999
 * -g --call-graph dwarf of a clang-19 -O2 -g build, on a 2-core machine
 * loaded by another build, load average ~4.8):
 *                      1 rank (1,084 samples)   2 ranks (1,985 samples)
 *   force_lj                   68.3%                 46.3%   writes atoms.f
 *   neighbor_build             27.7%                 17.3%   nl.neighbors, nl.numneigh
 *   comm_forward + its MPI_Waitall  0.5%             11.7% + ~19% of MPI
 *                        progress whose stack is cut (waiting for the other
 *                        rank: the receive into the ghost part of atoms.x)
 *   integrate, exchange, borders, cells_bin  ~2%     ~3%    atoms.x, atoms.v
 *   thermo + MPI_Allreduce      <0.5%                 ~1.5%  stats.* from epot
 *   MPI_Init                     1.5%                  0.9%  (nothing)
 * How much of the run the ranks wait depends on the load (14-34% per rank
 * here, a few percent on a quiet machine); the wait is the ghost receive.
 *  main:
 *  1. atoms      >= 90% (1 rank), >= 75% (2 ranks, loaded): every kernel
 *                writes one of its arrays;
 *  2. atoms.f    ~ force_lj (46-68%); atoms.x ~ the ghost updates with their
 *                waits, the migration and the drift (2-35%); each is computed
 *                from the other through the time loop, so inclusive blame may
 *                lift either, never above atoms;
 *  3. nl         ~ neighbor_build (17-28%), nl.neighbors and nl.numneigh;
 *  4. comm       comm.buf_send, comm.sendlist: packing (~1%) and the send
 *                half of the waits; below atoms;
 *  5. cl         cl.head, cl.next (cells_bin) < 1%.
 * Must not rank high: timers (the global timer array: differences of
 * wall_time only), stats (npairs, nbuilds, nmigrated, nghost_max; its
 * pe/ke/temp/press/drift are computed from epot and atoms.v: a record of
 * results, listed with the derived variables, below atoms), epot and virial
 * (sums of the force loop: derived scalars), params (read only), comm.comm
 * and comm.req (the communicator and the requests: their waits belong to
 * atoms.x and comm.buf_send), step, t, t_loop, t_start, cells, steps.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "md.h"

double timers[8];

double wall_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void default_params(Params *p, int cells, int steps) {
  p->nx = p->ny = p->nz = cells;
  p->nsteps = steps;
  p->reneigh_every = 20;
  p->thermo_every = 20;
  p->rho = 0.8442;
  p->temp0 = 1.44;
  p->dt = 0.005;
  p->cutforce = 2.5;
  p->skin = 0.3;
  p->mass = 1.0;
  p->epsilon = 1.0;
  p->sigma = 1.0;
}

/* Rebuild everything that depends on which atoms a rank holds. */
static void reneighbor(Comm *comm, Atoms *atoms, CellList *cells, NeighList *nl, Stats *st) {
  double t = wall_time();
  comm_pbc(atoms);
  comm_exchange(comm, atoms, st);
  comm_borders(comm, atoms, nl->cutneigh);
  if (atoms->nghost > st->nghost_max)
    st->nghost_max = atoms->nghost;
  timers[TIME_COMM] += wall_time() - t;

  t = wall_time();
  cells_bin(cells, atoms);
  neighbor_build(nl, cells, atoms);
  st->nbuilds++;
  timers[TIME_NEIGH] += wall_time() - t;
}

static double position_checksum(const Atoms *atoms, MPI_Comm comm) {
  double s = 0.0;
  for (int i = 0; i < atoms->nlocal; i++)
    s += atoms->x[3 * i] + 2.0 * atoms->x[3 * i + 1] + 3.0 * atoms->x[3 * i + 2];
  double g;
  MPI_Allreduce(&s, &g, 1, MPI_DOUBLE, MPI_SUM, comm);
  return g / (double)atoms->natoms;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int cells = argc > 1 ? atoi(argv[1]) : 20;
  int steps = argc > 2 ? atoi(argv[2]) : 60;

  Params params;
  Atoms atoms;
  Comm comm;
  CellList cl;
  NeighList nl;
  Stats stats;
  memset(&atoms, 0, sizeof atoms);
  memset(&stats, 0, sizeof stats);
  memset(timers, 0, sizeof timers);
  default_params(&params, cells, steps);

  MPI_Comm_dup(MPI_COMM_WORLD, &comm.comm);
  MPI_Comm_rank(comm.comm, &comm.me);
  MPI_Comm_size(comm.comm, &comm.nprocs);

  double t_start = wall_time();
  const double cutneigh = params.cutforce + params.skin;
  create_box(&atoms, &params, &comm);
  create_atoms(&atoms, &params);
  create_velocities(&atoms, &params, &comm);
  comm_setup(&comm, &atoms, cutneigh);
  cells_setup(&cl, &atoms, cutneigh);
  neighbor_init(&nl, cutneigh);
  reneighbor(&comm, &atoms, &cl, &nl, &stats);
  double virial = 0.0;
  double epot = force_lj(&atoms, &nl, &params, &virial, &stats.npairs);
  thermo(&atoms, &params, &comm, epot, virial, 0, &stats);
  timers[TIME_SETUP] = wall_time() - t_start;
  timers[TIME_COMM] = timers[TIME_NEIGH] = 0.0;
  if (comm.me == 0)
    printf("mdlink: %ld atoms, box %.3f^3, %d ranks, %d link cells per rank\n", atoms.natoms,
           atoms.box[0], comm.nprocs, cl.ncells);

  double t_loop = wall_time();
  for (int step = 1; step <= params.nsteps; step++) {
    double t = wall_time();
    initial_integrate(&atoms, &params);
    timers[TIME_INTEGRATE] += wall_time() - t;

    if (step % params.reneigh_every == 0) {
      reneighbor(&comm, &atoms, &cl, &nl, &stats);
    } else {
      t = wall_time();
      comm_forward(&comm, &atoms);
      timers[TIME_COMM] += wall_time() - t;
    }

    t = wall_time();
    epot = force_lj(&atoms, &nl, &params, &virial, &stats.npairs);
    timers[TIME_FORCE] += wall_time() - t;

    t = wall_time();
    final_integrate(&atoms, &params);
    timers[TIME_INTEGRATE] += wall_time() - t;

    if (step % params.thermo_every == 0 || step == params.nsteps) {
      t = wall_time();
      thermo(&atoms, &params, &comm, epot, virial, step, &stats);
      timers[TIME_THERMO] += wall_time() - t;
    }
  }
  timers[TIME_TOTAL] = wall_time() - t_loop;
  timers[TIME_OTHER] = timers[TIME_TOTAL] - timers[TIME_FORCE] - timers[TIME_NEIGH] -
                       timers[TIME_COMM] - timers[TIME_INTEGRATE] - timers[TIME_THERMO];

  double checksum = position_checksum(&atoms, comm.comm);
  double tmax[8];
  MPI_Reduce(timers, tmax, 8, MPI_DOUBLE, MPI_MAX, 0, comm.comm);
  long pairs = 0;
  MPI_Reduce(&stats.npairs, &pairs, 1, MPI_LONG, MPI_SUM, 0, comm.comm);
  if (comm.me == 0) {
    double tmean = stats.temp_sum / stats.nthermo;
    double tvar = stats.temp_sqsum / stats.nthermo - tmean * tmean;
    printf("mdlink: %d steps, %ld neighbour builds, %ld atoms migrated on rank 0, max ghosts %d\n",
           params.nsteps, stats.nbuilds, stats.nmigrated, stats.nghost_max);
    printf("mdlink: <T> %.5f (sd %.5f), energy drift %.3e, checksum %.10f\n", tmean,
           sqrt(tvar > 0.0 ? tvar : 0.0), stats.drift_max, checksum);
    printf("mdlink: time %.3f s: force %.3f neigh %.3f comm %.3f integrate %.3f thermo %.3f "
           "other %.3f (setup %.3f); %.1f Mpairs/s\n",
           tmax[TIME_TOTAL], tmax[TIME_FORCE], tmax[TIME_NEIGH], tmax[TIME_COMM],
           tmax[TIME_INTEGRATE], tmax[TIME_THERMO], tmax[TIME_OTHER], tmax[TIME_SETUP],
           1e-6 * pairs / tmax[TIME_TOTAL]);
  }
  MPI_Comm_free(&comm.comm);
  free(atoms.x);
  free(atoms.v);
  free(atoms.f);
  MPI_Finalize();
  return 0;
}
