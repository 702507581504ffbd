#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "halo.h"
#include "lbm.h"
#include "macro.h"

#define MAX_OUT 256

typedef struct {
  int nx, ny, steps, out_every;
  double reynolds, u_max;
} Options;

/* what the diagnostics found over the run */
typedef struct {
  double mass0, mass, energy, umax_peak;
  double cd_mean, cl_min, cl_max;
  int nout, lift_flips;
} FlowStats;

static Options parse_options(int argc, char **argv)
{
  Options o = {400, 160, 2400, 200, 100.0, 0.1};
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *opt = argv[i], *val = argv[i + 1];
    if (!strcmp(opt, "-nx")) o.nx = atoi(val);
    else if (!strcmp(opt, "-ny")) o.ny = atoi(val);
    else if (!strcmp(opt, "-steps")) o.steps = atoi(val);
    else if (!strcmp(opt, "-out")) o.out_every = atoi(val);
    else if (!strcmp(opt, "-re")) o.reynolds = atof(val);
    else if (!strcmp(opt, "-u")) o.u_max = atof(val);
  }
  if (o.steps < 1) o.steps = 1;
  if (o.out_every < 1) o.out_every = 1;
  if (o.steps / o.out_every > MAX_OUT) o.out_every = (o.steps + MAX_OUT - 1) / MAX_OUT;
  return o;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  double t_start = MPI_Wtime();

  Options opt = parse_options(argc, argv);
  if (domain_setup(opt.nx, opt.ny, opt.reynolds, opt.u_max, opt.steps, opt.out_every,
                   rank, nranks) != 0) {
    if (rank == 0)
      fprintf(stderr, "lbmflow: %d x %d is too small for %d ranks\n", opt.nx, opt.ny, nranks);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  unsigned char *solid = obstacle_create();
  Lattice *src = lattice_create(g_dom.nx_local, g_dom.ny);
  Lattice *dst = lattice_create(g_dom.nx_local, g_dom.ny);
  Macro mac;
  Halo halo;
  if (solid == NULL || src == NULL || dst == NULL ||
      macro_create(&mac, g_dom.nx_local, g_dom.ny) != 0 ||
      halo_create(&halo, src, MPI_COMM_WORLD) != 0)
    MPI_Abort(MPI_COMM_WORLD, 2);
  lattice_init(src, solid);
  lattice_init(dst, solid);

  const double diameter = 2.0 * g_dom.cyl_r, u_mean = 2.0 / 3.0 * g_dom.u_max;
  const double fscale = 2.0 / (u_mean * u_mean * diameter);
  if (rank == 0)
    printf("lbmflow: D2Q9 %d x %d on %d ranks, cylinder r %.1f at (%.1f, %.1f), "
           "Re %.1f, u_max %.3f, omega %.6f, %d steps\n",
           g_dom.nx, g_dom.ny, nranks, g_dom.cyl_r, g_dom.cyl_x, g_dom.cyl_y,
           g_dom.reynolds, g_dom.u_max, g_dom.omega, g_dom.steps);

  double force_hist[2 * MAX_OUT];
  FlowStats stats;
  memset(&stats, 0, sizeof stats);
  double t_collide = 0.0, t_halo = 0.0, t_io = 0.0;

  for (int step = 1; step <= g_dom.steps; step++) {
    double t0 = MPI_Wtime();
    apply_boundaries(src);
    halo_exchange(&halo, src);
    double t1 = MPI_Wtime();
    collide_stream(src, dst, solid);
    double t2 = MPI_Wtime();
    t_halo += t1 - t0;
    t_collide += t2 - t1;
    Lattice *tmp = src;
    src = dst;
    dst = tmp;

    if (step % g_dom.out_every == 0 || step == g_dom.steps) {
      double t3 = MPI_Wtime();
      double local[3], global[2], umax, force[2];
      compute_macro(src, solid, &mac);
      macro_sums(&mac, solid, local);
      MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      MPI_Allreduce(&local[2], &umax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      obstacle_force(src, solid, force);
      int k = stats.nout < MAX_OUT ? stats.nout : MAX_OUT - 1;
      MPI_Allreduce(force, &force_hist[2 * k], 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      if (stats.nout == 0)
        stats.mass0 = global[0];
      stats.mass = global[0];
      stats.energy = global[1];
      if (umax > stats.umax_peak)
        stats.umax_peak = umax;
      if (k > 0 && (force_hist[2 * k + 1] > 0.0) != (force_hist[2 * k - 1] > 0.0))
        stats.lift_flips++;
      stats.nout = k + 1;
      if (rank == 0)
        printf("step %5d  mass %.8f  energy %.6e  max|u| %.6f  Cd %.5f  Cl %+.5f\n",
               step, global[0], global[1], umax, fscale * force_hist[2 * k],
               fscale * force_hist[2 * k + 1]);
      t_io += MPI_Wtime() - t3;
    }
  }

  /* coefficients over the second half of the recorded history */
  int first = stats.nout / 2;
  stats.cl_min = stats.cl_max = fscale * force_hist[2 * first + 1];
  for (int i = first; i < stats.nout; i++) {
    double cl = fscale * force_hist[2 * i + 1];
    stats.cd_mean += fscale * force_hist[2 * i];
    if (cl < stats.cl_min) stats.cl_min = cl;
    if (cl > stats.cl_max) stats.cl_max = cl;
  }
  stats.cd_mean /= stats.nout - first;

  double timing[4] = {t_collide, t_halo, t_io, MPI_Wtime() - t_start}, tmax[4];
  MPI_Reduce(timing, tmax, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%d outputs: mass %.8f -> %.8f (drift %+.3e), energy %.6e, peak |u| %.6f\n",
           stats.nout, stats.mass0, stats.mass, (stats.mass - stats.mass0) / stats.mass0,
           stats.energy, stats.umax_peak);
    printf("second half: mean Cd %.5f, Cl in [%+.5f, %+.5f], %d lift sign changes\n",
           stats.cd_mean, stats.cl_min, stats.cl_max, stats.lift_flips);
    fflush(stdout);
    double mlups = (double)g_dom.nx * g_dom.ny * g_dom.steps / (tmax[0] + tmax[1]) * 1e-6;
    fprintf(stderr, "timing (max over ranks): collide %.3f s, halo %.3f s, output %.3f s, "
            "total %.3f s, %.1f MLUPS, %ld exchanges a rank\n",
            tmax[0], tmax[1], tmax[2], tmax[3], mlups, halo.nexchange);
  }

  halo_free(&halo);
  macro_free(&mac);
  lattice_free(src);
  lattice_free(dst);
  free(solid);
  MPI_Finalize();
  return 0;
}
