/* picgrid: a 2-D electrostatic particle-in-cell code (two counter-streaming
 * electron beams on a neutralizing ion background), split into slabs of
 * rows over MPI ranks. Each step:
 *   build_cell_lists   per-cell linked lists of the particles (cell_head,
 *                      cell_next: index arrays, globals of particles.c);
 *   deposit_charge     cloud-in-cell charge of every cell's particles into
 *                      the global rho, then fold_ghost_charge() adds the
 *                      ghost row to the rank above (MPI_Isend/MPI_Irecv);
 *   solve_field        Jacobi sweeps over the global phi (phi_new is the
 *                      scratch, swapped with phi after every sweep), each
 *                      after a halo exchange: halo_exchange() packs rows into
 *                      the global sendbuf_lo/sendbuf_hi, MPI_Irecv/MPI_Isend/
 *                      MPI_Waitall into recvbuf_lo/recvbuf_hi, and
 *                      unpack_halo() copies them into the ghost rows of phi;
 *   compute_efield     ex, ey = -grad(phi), and their ghost rows;
 *   push_particles     leapfrog push of the particles (main's Species elec,
 *                      an array of structs) walking the cell lists;
 *   migrate_particles  particles that left the slab go to the neighbours:
 *                      MPI_Send of the count, then the particles; MPI_Recv
 *                      appends them to elec;
 *   compute_energies   kinetic and field energy, MPI_Allreduce of the totals,
 *                      kept in main's energy history.
 * Phases are timed with MPI_Wtime into main's Timers.
 *   usage: mpirun -np 2 picgrid [nx] [ny_global] [ppc] [steps] [sweeps]
 *          (defaults 256 128 6 60 60: 196,608 particles; an even number of
 *          ranks, or 1)
 * The potential is not converged by 60 sweeps a step; the run prints the
 * total energy, which drifts by ~8% over the 60 steps.
 *
 * This program is held out of tuning (issue 30): not to be used while
 * tuning blame; its figures are reported apart.
 *
 * Expected ranking, derived from by-function profiles (perf record -e
 * cpu-clock -F 999 -g --call-graph dwarf of mpicc -g -O2 builds with
 * OMPI_CC=clang-19, application samples, inclusive shares; the 2-core
 * machine loaded by other builds, load ~7):
 *                          1 rank (603 samples)   2 ranks (2,025 samples)
 *   push_particles                 39.8%                 13.5%   elec
 *   deposit_charge                 24.9%                  6.8%   rho
 *   solve_field                    14.1%                 41.9%
 *     Jacobi sweeps (own lines)    13.3%                  3.7%   phi/phi_new
 *     halo_exchange (MPI_Waitall)   0.8%                 39.3%   recvbuf_lo/hi
 *                                                               -> phi
 *   build_cell_lists                5.6%                  2.5%   cell_head,
 *                                                               cell_next
 *   migrate_particles               4.5%                 17.4%   elec (own 1.2%
 *     MPI_Send (counts, particles)   -                    9.5%   and the MPI_Recv
 *     MPI_Recv                       -                   ~6.7%   into it);
 *                                                               out_lo/out_hi
 *   fold_ghost_charge (waits)       0.2%                  9.3%   rho
 *   compute_energies (+Allreduce)   2.8%                  3.9%   e -> energy_hist
 *   compute_efield                  0.8%                  0.7%   ex, ey
 *   particles_init                  0.8%                  1.1%   elec
 *   MPI_Init                         -                    1.6%
 * On 2 loaded ranks most of the time is waiting in MPI (63% of the samples
 * are in Open MPI's progress loop): the ranks take turns on the cores.
 *  1. elec (main's Species; elec.p the particles) >= the push's share
 *     (14-40%) plus migration: first among the program's data on a quiet
 *     machine; above cell_head, cell_next, ex and ey, which the push only
 *     reads;
 *  2. rho >= the deposition's share (7-25%), with fold_ghost_charge's wait;
 *  3. phi (with phi_new: the pointers are swapped after every sweep, so the
 *     sweeps may be split between the two) >= the Jacobi sweeps' share;
 *     the halo waits belong to recvbuf_lo/recvbuf_hi, which MPI_Irecv
 *     writes and MPI_Waitall completes, and through unpack_halo to phi
 *     (and ex, ey): on 2 loaded ranks up to ~40%, never unblamed;
 *  4. cell_head, cell_next ~ the list building (3-6%);
 *  5. out_lo/out_hi (migrate.c's send buffers, with the MPI_Send waits),
 *     ex, ey, sendbuf_lo/sendbuf_hi (packing only, ~0).
 * Must not rank high: timers (Timers: deposit, field, push, migrate, diag,
 * total: MPI_Wtime differences), counters (migrated, max_particles,
 * sweeps_done), energy_hist (a history of results: derived), e (Energies,
 * derived), t0, t_start, step, background, prm (Params; prm.comm), the
 * requests req, the loop indices i, j, ic, jc, sweep. No rows at all for
 * element pointers and cursors: pp, k (the list cursor), row0, row1, up,
 * mid, down, rhs, out, tmp (the swap); no rows for MPI's own globals
 * (ompi_mpi_comm_world, ...).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pic.h"

typedef struct {
  double deposit, field, push, migrate, diag, total;
} Timers;

typedef struct {
  long migrated;
  long max_particles;
  int sweeps_done;
} Counters;

static void usage(const char *prog) {
  fprintf(stderr, "usage: mpirun -np P %s [nx] [ny_global] [ppc] [steps] [sweeps]\n", prog);
}

static int parse_params(int argc, char **argv, Params *prm) {
  prm->nx = argc > 1 ? atoi(argv[1]) : 256;
  prm->ny_global = argc > 2 ? atoi(argv[2]) : 128;
  prm->ppc = argc > 3 ? atoi(argv[3]) : 6;
  prm->steps = argc > 4 ? atoi(argv[4]) : 60;
  prm->sweeps = argc > 5 ? atoi(argv[5]) : 60;
  prm->dt = 0.1;
  prm->v0 = 2.0;
  prm->vth = 1.0;
  prm->comm = MPI_COMM_WORLD;
  MPI_Comm_rank(prm->comm, &prm->rank);
  MPI_Comm_size(prm->comm, &prm->nprocs);
  if (prm->nx < 4 || prm->ppc < 1 || prm->steps < 1 || prm->sweeps < 1 ||
      prm->ny_global % prm->nprocs != 0 || prm->ny_global / prm->nprocs < 2 ||
      (prm->nprocs > 1 && prm->nprocs % 2 != 0))
    return 0;
  prm->ny = prm->ny_global / prm->nprocs;
  prm->y0 = prm->rank * prm->ny;
  prm->lo = (prm->rank + prm->nprocs - 1) % prm->nprocs;
  prm->hi = (prm->rank + 1) % prm->nprocs;
  return 1;
}

int main(int argc, char **argv) {
  Params prm;
  Species elec;
  Timers timers = {0};
  Counters counters = {0};
  Energies e;
  double *energy_hist;
  double t0, t_start, background;
  int step;

  MPI_Init(&argc, &argv);
  if (!parse_params(argc, argv, &prm)) {
    if (prm.rank == 0)
      usage(argv[0]);
    MPI_Finalize();
    return 1;
  }
  t_start = MPI_Wtime();
  fields_alloc(&prm);
  particles_init(&prm, &elec);
  /* the ions: a uniform neutralizing background of charge +1 per cell */
  background = 1.0;
  energy_hist = malloc((size_t)(prm.steps + 1) * 3 * sizeof(double));
  if (!energy_hist)
    MPI_Abort(prm.comm, 1);
  if (prm.rank == 0)
    printf("picgrid: %d x %d grid on %d ranks, %d particles per cell, %d steps, %d sweeps\n",
           prm.nx, prm.ny_global, prm.nprocs, prm.ppc, prm.steps, prm.sweeps);

  for (step = 0; step <= prm.steps; step++) {
    t0 = MPI_Wtime();
    build_cell_lists(&prm, &elec);
    deposit_charge(&prm, &elec);
    fold_ghost_charge(&prm);
    timers.deposit += MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    solve_field(&prm, background);
    compute_efield(&prm);
    counters.sweeps_done += prm.sweeps;
    timers.field += MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    e = compute_energies(&prm, &elec);
    energy_hist[3 * step] = e.kinetic;
    energy_hist[3 * step + 1] = e.field;
    energy_hist[3 * step + 2] = e.kinetic + e.field;
    if (prm.rank == 0 && step % 10 == 0)
      printf("step %4d  kinetic %.6e  field %.6e  total %.6e  charge %+.3e  particles %ld\n",
             step, e.kinetic, e.field, e.kinetic + e.field, e.charge + background * prm.nx *
             prm.ny_global, e.particles);
    timers.diag += MPI_Wtime() - t0;
    if (step == prm.steps)
      break;

    t0 = MPI_Wtime();
    push_particles(&prm, &elec);
    timers.push += MPI_Wtime() - t0;

    t0 = MPI_Wtime();
    counters.migrated += migrate_particles(&prm, &elec);
    if (elec.n > counters.max_particles)
      counters.max_particles = elec.n;
    timers.migrate += MPI_Wtime() - t0;
  }
  timers.total = MPI_Wtime() - t_start;

  if (prm.rank == 0) {
    /* growth of the field energy over the run: the two-stream instability */
    double growth = 0.0, drift;
    if (energy_hist[1] > 0.0)
      growth = log(energy_hist[3 * prm.steps + 1] / energy_hist[1]) / (prm.steps * prm.dt);
    drift = (energy_hist[3 * prm.steps + 2] - energy_hist[2]) / energy_hist[2];
    printf("field energy growth rate %.4f, total energy drift %.3e\n", growth, drift);
    printf("rank 0: %ld particles migrated in, at most %ld particles, %d sweeps\n",
           counters.migrated, counters.max_particles, counters.sweeps_done);
    printf("time: deposit %.3f s, field %.3f s, push %.3f s, migrate %.3f s, diag %.3f s, "
           "total %.3f s\n",
           timers.deposit, timers.field, timers.push, timers.migrate, timers.diag, timers.total);
  }
  fields_free();
  free(elec.p);
  free(cell_head);
  free(cell_next);
  free(energy_hist);
  MPI_Finalize();
  return 0;
}
