/* mpiwait: an atmosphere and an ocean coupled through MPI, one rank each,
 * on n x n grids. Every coupling step rank 0 (atmosphere.c) computes the
 * surface heat flux (bulk formulae), sends it with a blocking MPI_Send of
 * n*n doubles, posts an MPI_Irecv for the ocean's temperature, advects its
 * air temperature, waits for the temperature in MPI_Wait and relaxes the air
 * towards it. Rank 1 (ocean.c) receives the flux, solves the implicit
 * diffusion of the sea-surface temperature (Jacobi), sends the result, then
 * mixes and diagnoses its own state. The ocean computes more: the atmosphere
 * waits in MPI_Send (the ocean is still mixing and has not posted its
 * receive; the message is far above the eager limit) and in MPI_Wait (the
 * ocean is still solving). Every 5 steps both call MPI_Barrier on the
 * communicator kept in `Context ctx`; timers and counters in `PipeStats`.
 *   usage: mpirun -np 2 mpiwait [n] [steps]   (defaults 512 and 20)
 *
 * This program is held out of tuning (issue 30): not to be used while
 * tuning blame; its figures are reported apart.
 *
 * Expected ranking, derived from a by-function profile (perf record -F 999
 * -g --call-graph dwarf of a clang-19 -O2 -g build, 889 samples, on a 2-core
 * machine loaded by another build, load average ~4.6), per rank:
 *   rank 0 (atmosphere, 399 samples)         rank 1 (ocean, 490 samples)
 *   advance_air/advect_upwind 26.8% atm.temp  solve_sst (in ocean_run) ~37%
 *   compute_fluxes (with exp) ~27%  atm.flux    oc.sst, sst_iter, rhs, sst_out
 *   couple_to_sst, smooth5     6.5% atm.temp  mix_and_diagnose  30.6%
 *   in MPI                    27.3%             oc.grad, oc.sst, sst_iter, heat
 *     (its own timers: MPI_Send 0.43 s, MPI_Wait in MPI                   23.7%
 *      0.24 s, MPI_Barrier 0.09 s of 1.82 s:     (waits for rank 0, which
 *      42% of rank 0's time is spent waiting)     the load deschedules; on
 *   kernel                     5.5%               a quiet machine ~0)
 *  main:
 *  1. atm (rank 0) ~ all of rank 0 and oc (rank 1) ~ all of rank 1;
 *  2. rank 0: atm.flux (computed, ~27%, and the MPI_Send that blocks on it,
 *     ~25% of rank 0's time) and atm.temp/atm.temp_new (advection and
 *     coupling, ~33%; the two pointers are swapped after every pass, so the
 *     time may be split between them) first; atm.sst_in: what the MPI_Irecv
 *     writes and MPI_Wait completes (~13% of rank 0's time waiting on it);
 *     atm.wind_u, atm.wind_v only read (~0%);
 *  3. rank 1: oc.sst and oc.sst_iter (the solve and the mixing, swapped
 *     too), oc.rhs, oc.sst_out (the copy that is sent), oc.grad (~5%),
 *     oc.heat (~2%), oc.flux_in (what MPI_Recv writes);
 *  4. ctx: only the barriers (ctx.comm, ~5% of rank 0), below atm.flux and
 *     atm.sst_in.
 * The waits must not go unblamed ("reaches no variable") or to bookkeeping.
 * Must not rank high: stats (PipeStats: t_compute, t_send, t_recv, t_wait,
 * t_barrier timers, bytes_sent, bytes_recv, steps counters; stats.checksum
 * a result computed from atm.temp or oc.heat, listed with the derived
 * variables), t0, elapsed, n; in the run functions step, time, t, req (the
 * request: its wait belongs to atm.sst_in).
 */
#include <stdio.h>
#include <stdlib.h>

#include "coupler.h"

static void report(const Context *ctx, const PipeStats *st) {
  double mine[7] = {st->t_compute, st->t_send, st->t_recv, st->t_wait, st->t_barrier,
                    st->checksum, (double)st->bytes_sent};
  double all[14];
  MPI_Gather(mine, 7, MPI_DOUBLE, all, 7, MPI_DOUBLE, 0, ctx->comm);
  if (ctx->rank != 0)
    return;
  const char *name[2] = {"atmosphere", "ocean"};
  for (int r = 0; r < 2; r++) {
    const double *v = &all[7 * r];
    double total = v[0] + v[1] + v[2] + v[3] + v[4];
    printf("mpiwait: %-10s compute %.3f s, send %.3f, recv %.3f, wait %.3f, barrier %.3f "
           "(%.0f%% in MPI), %.1f MB sent, checksum %.10e\n",
           name[r], v[0], v[1], v[2], v[3], v[4], 100.0 * (total - v[0]) / total, v[6] / 1e6,
           v[5]);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  Context ctx;
  MPI_Comm_dup(MPI_COMM_WORLD, &ctx.comm);
  MPI_Comm_rank(ctx.comm, &ctx.rank);
  MPI_Comm_size(ctx.comm, &ctx.size);
  if (ctx.size != 2) {
    if (ctx.rank == 0)
      fprintf(stderr, "mpiwait: run on exactly 2 ranks (atmosphere and ocean)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int n = argc > 1 ? atoi(argv[1]) : 512;
  ctx.nsteps = argc > 2 ? atoi(argv[2]) : 20;
  ctx.barrier_every = 5;
  ctx.partner = 1 - ctx.rank;

  PipeStats stats = {0};
  double t0 = wall_time();
  if (ctx.rank == 0) {
    Atmosphere atm;
    atmosphere_init(&atm, n);
    atmosphere_run(&atm, &ctx, &stats);
    atmosphere_free(&atm);
  } else {
    Ocean oc;
    ocean_init(&oc, n);
    ocean_run(&oc, &ctx, &stats);
    ocean_free(&oc);
  }
  double elapsed = wall_time() - t0;
  report(&ctx, &stats);
  if (ctx.rank == 0)
    printf("mpiwait: %d coupling steps on a %dx%d grid in %.3f s\n", ctx.nsteps, n, n, elapsed);
  MPI_Comm_free(&ctx.comm);
  MPI_Finalize();
  return 0;
}
