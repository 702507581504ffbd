/* odechem: operator-split reacting flow on a 2-D grid, in the style of a
 * combustion code's chemistry driver. Every step:
 *   transport_step   (transport.c) explicit diffusion of every variable
 *                    (5-point stencil into grid.qnew, then the buffers are
 *                    swapped), after halo_exchange(): MPI_Sendrecv of the
 *                    first and last rows of each variable into the ghost
 *                    rows of grid.q; Strang splitting: half the sub-steps
 *                    before the chemistry, half after;
 *   chemistry_step   (chem.c) every cell is a constant-volume reactor: its
 *                    variables are gathered into ycell, integrated over the
 *                    step by the generic Cash-Karp RK45 integrator (ode.c,
 *                    an opaque OdeIntegrator made by the factory
 *                    ode_create(): stage vectors k1..k6, ytmp, ynew, yerr
 *                    in one allocation, statistics and a timer inside) with
 *                    the kinetics right-hand side (kinetics.c, called
 *                    through a function pointer with main's KinCtx as void
 *                    *ctx: the Arrhenius table of the Mechanism mech, the
 *                    scratch arrays kf (rate constants) and rate), and
 *                    scattered back; the step the controller suggests is
 *                    kept per cell in grid.hchem;
 *   diagnostics      (diag.c) min/max/mean of every variable, MPI_Allreduce.
 * At the end the integrators' statistics are summed over the ranks
 * (MPI_Reduce into gstats) and printed with main's Timers (MPI_Wtime).
 *   usage: mpirun -np 2 odechem [nrows] [ncols] [steps] [dt]
 *          (defaults 64 64 24 0.05; nrows a multiple of the ranks)
 *
 * This program is held out of tuning (issue 30, round 6): not to be used
 * while tuning blame; its figures are reported apart.
 *
 * Expected ranking, derived from by-function profiles (perf record -e
 * cpu-clock -F 999 --call-graph dwarf of an mpicc -g -O2 build with
 * OMPI_CC=clang-19, inclusive shares of the program's samples; the 2-core
 * machine shared with other builds):
 *                              1 rank (872 samples)  2 ranks (521 + 521)
 *   chemistry_step                   87.3%           77.2% / 49.7%
 *     ode_integrate                  87.3%           76.6% / 49.5%
 *       kinetics_rhs (via pointer)   76.2%           66.6% / 41.3%
 *         exp, log (rate constants)  38.0%           34.5% / 21.7%
 *       own lines (stages, update)    6.9%            6.5% /  4.8%
 *       error_norm                    1.2%            2.1% /  1.3%
 *   transport_step                    1.2%           16.1% / 44.9%
 *     halo_exchange (MPI_Sendrecv)    0.1%           14.6% / 44.7%
 *                                   (rank 1 waits for the hotter rank 0)
 *   compute_diagnostics               0.1%            0.2% /  0.4%
 *   MPI_Init                          4.0%            4.6% /  4.4%
 *  1. grid (grid.q, with grid.qnew: the buffers are swapped after every
 *     transport step) >= chemistry + transport (88-94%): the integration
 *     of every cell ends in the scatter of ycell into grid.q, the stencil
 *     writes grid.qnew, and the halo waits are receives into the ghost
 *     rows of grid.q. First among the data.
 *  2. ode (the integrator behind its opaque handle; main.c never sees
 *     struct OdeIntegrator) >= the right-hand side (41-76%): kinetics_rhs
 *     writes dydt, which is the integrator's stage vectors k1..k6 (its
 *     fields work/k1..k6/ytmp/ynew/yerr), and the stages make ynew; a data
 *     structure, not a derived scalar; at most grid's share.
 *  3. kin (main's KinCtx, reached only through the void *ctx of the
 *     function-pointer call) >= the rate constants' exp/log (22-38%): the
 *     right-hand side writes kin->kf and kin->rate, which make dydt; below
 *     ode.
 *  4. grid.hchem: the controller's step sizes (error_norm and the step
 *     update, a few %), below grid.q.
 * Must not rank high: mech (the Arrhenius table, written once by
 * mechanism_init, then only read: ~0); the statistics ode.stats (counters
 * and the t_step/t_max timer of ode_integrate) and kin.calls; in main:
 * timers (MPI_Wtime differences), counters (ChemCounters), gstats (the
 * reduced statistics: derived), gcounts, lcounts, rhs_calls, diag (the
 * min/max/mean records: derived), time, step, t_start, t0..t3, nsub, dt_tr,
 * dt_stable, prm. No rows at all for element pointers and aliases: h (a
 * pointer to the cell's entry of grid.hchem), up, mid, down, out, tmp (the
 * swap), first, last, ghost_up, ghost_down (halo rows), row (diagnostics),
 * rx (a reaction of the table), the k1..k6/ytmp locals of ck_step
 * (copies of the integrator's field pointers), and in kinetics_rhs its
 * context ctx, the cast kin and the mech pointer read from it (all main's
 * kin and mech, reached through the void *); no rows for MPI's own
 * globals (ompi_mpi_comm_world, ...). Time in MPI_Sendrecv never "reaches
 * no variable".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "chem.h"

typedef struct {
  double transport, chemistry, diagnostics, total;
} Timers;

typedef struct {
  int nrows, ncols, steps, diag_every;
  double dt, rtol, atol;
} Params;

static int parse_params(int argc, char **argv, Params *p) {
  p->nrows = argc > 1 ? atoi(argv[1]) : 64;
  p->ncols = argc > 2 ? atoi(argv[2]) : 64;
  p->steps = argc > 3 ? atoi(argv[3]) : 24;
  p->dt = argc > 4 ? atof(argv[4]) : 0.05;
  p->diag_every = 4;
  p->rtol = 1e-6;
  p->atol = 1e-10;
  return p->nrows > 1 && p->ncols > 2 && p->steps > 0 && p->dt > 0.0;
}

/* Sums the integrators' statistics over the ranks onto rank 0 (the timers
 * are summed too: total CPU seconds). */
static void reduce_stats(const OdeStats *local, OdeStats *global, MPI_Comm comm) {
  long lc[5] = {local->steps, local->rejected, local->rhs_evals,
                local->integrations, local->failures};
  long gc[5];
  double gt[2];
  MPI_Reduce(lc, gc, 5, MPI_LONG, MPI_SUM, 0, comm);
  MPI_Reduce(&local->t_step, &gt[0], 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  MPI_Reduce(&local->t_max, &gt[1], 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  global->steps = gc[0];
  global->rejected = gc[1];
  global->rhs_evals = gc[2];
  global->integrations = gc[3];
  global->failures = gc[4];
  global->t_step = gt[0];
  global->t_max = gt[1];
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Params prm;
  if (!parse_params(argc, argv, &prm)) {
    if (rank == 0)
      fprintf(stderr, "usage: mpirun -np P %s [nrows] [ncols] [steps] [dt]\n", argv[0]);
    MPI_Finalize();
    return 1;
  }
  Grid grid;
  if (grid_create(&grid, prm.nrows, prm.ncols, MPI_COMM_WORLD) != 0) {
    if (rank == 0)
      fprintf(stderr, "odechem: %d rows do not split over the ranks\n", prm.nrows);
    MPI_Finalize();
    return 1;
  }
  grid_init_mixture(&grid);

  Mechanism mech;
  mechanism_init(&mech);
  KinCtx kin;
  kin_ctx_init(&kin, &mech);
  OdeIntegrator *ode = ode_create(NVAR, prm.rtol, prm.atol, 1e-12);
  if (!ode || !kin.kf || !kin.rate) {
    fprintf(stderr, "odechem: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  ode_set_max_steps(ode, 20000);

  /* transport sub-steps per chemistry step (Strang: half before, half after) */
  const double dt_stable = transport_stable_dt(&grid);
  int nsub = (int)ceil(0.5 * prm.dt / dt_stable);
  if (nsub < 1)
    nsub = 1;
  const double dt_tr = 0.5 * prm.dt / nsub;

  Timers timers = {0.0, 0.0, 0.0, 0.0};
  ChemCounters counters = {0, 0, 0};
  Diagnostics diag;
  double time = 0.0;
  const double t_start = MPI_Wtime();
  for (int step = 1; step <= prm.steps; step++) {
    double t0 = MPI_Wtime();
    for (int s = 0; s < nsub; s++)
      transport_step(&grid, dt_tr);
    double t1 = MPI_Wtime();
    chemistry_step(&grid, ode, &kin, prm.dt, &counters);
    double t2 = MPI_Wtime();
    for (int s = 0; s < nsub; s++)
      transport_step(&grid, dt_tr);
    double t3 = MPI_Wtime();
    timers.transport += (t1 - t0) + (t3 - t2);
    timers.chemistry += t2 - t1;
    time += prm.dt;
    if (step % prm.diag_every == 0 || step == prm.steps) {
      compute_diagnostics(&grid, &diag);
      if (rank == 0)
        print_diagnostics(&diag, &mech, step, time);
      timers.diagnostics += MPI_Wtime() - t3;
    }
  }
  timers.total = MPI_Wtime() - t_start;

  OdeStats gstats;
  reduce_stats(ode_stats(ode), &gstats, MPI_COMM_WORLD);
  long gcounts[3], lcounts[3] = {counters.cells, counters.failed, counters.hot_cells};
  MPI_Reduce(lcounts, gcounts, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  long rhs_calls = 0;
  MPI_Reduce(&kin.calls, &rhs_calls, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("integrator: %ld integrations, %ld steps (%.1f per cell), %ld rejected, "
           "%ld rhs evaluations (%ld counted by the kinetics), %ld failures\n",
           gstats.integrations, gstats.steps,
           (double)gstats.steps / (double)(gstats.integrations ? gstats.integrations : 1),
           gstats.rejected, gstats.rhs_evals, rhs_calls, gstats.failures);
    printf("cells: %ld integrated, %ld hot, %ld failed; transport sub-steps %d\n",
           gcounts[0], gcounts[2], gcounts[1], nsub);
    printf("time: total %.3f s, chemistry %.3f s (integrator %.3f s over ranks, "
           "slowest cell %.2e s), transport %.3f s, diagnostics %.3f s\n",
           timers.total, timers.chemistry, gstats.t_step, gstats.t_max,
           timers.transport, timers.diagnostics);
  }
  ode_destroy(ode);
  kin_ctx_free(&kin);
  grid_free(&grid);
  MPI_Finalize();
  return 0;
}
