/* mpiwait: an atmosphere and an ocean coupled through MPI, one rank each.
 *   usage: mpirun -np 2 mpiwait [n] [steps]
 * PROFILE_COMMENT
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
