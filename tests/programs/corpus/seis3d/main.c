/* seis3d: 3D elastic wave propagation (velocity-stress, 4th-order
 * staggered grid) through a layered model with an anticline, in the style
 * of a seismic modelling code; the model is cut into z slabs, one a rank.
 * Every step each rank runs:
 *   update_velocity  (kernels.c) vx, vy, vz of main's Wavefield `wf` from
 *                    its six stresses and model.rho_inv;
 *   halo_exchange    (halo.c) 2 ghost planes of vx, vy, vz packed into the
 *                    static sendbuf, MPI_Isend/Irecv/Waitall into recvbuf,
 *                    unpacked into wf's ghost planes;
 *   update_stress    the six stresses from the velocity gradients and
 *                    model.lam, model.mu (harmonic means of mu: hmean4);
 *   source_inject    (source.c) a Ricker wavelet into wf.sxx, syy, szz;
 *   sponge_apply     (sponge.c) the nine fields damped in the outer 6
 *                    cells by the profiles of main's Sponge `sponge`;
 *   halo_exchange    the six stresses, likewise;
 *   receivers_record vz at 32 stations into rec.traces (nrec x nt);
 * every 25 steps energy_norm (io.c): kinetic and strain energy, reduced by
 * MPI_Allreduce into main's energy[] and kept in energy_hist. lap() adds
 * MPI_Wtime differences to t_phase[5]. At the end the traces are summed
 * to rank 0 (`all`) and checksummed. Held out of tuning (round 8).
 *   usage: mpirun -np 2 seis3d [nx] [ny] [nz] [nt]    (256 96 96 200)
 *
 * Expected ranking, from a code-centric profile (blame record -F 2000 of
 * an mpicc -g -O2 build, OMPI_CC=clang-19, --by-function and the line
 * frames of blame dump; 10,670 samples of the 2 ranks, alike on both):
 *   update_stress    41.1%  normal 15.4 (exx.. shared), edge moduli 9.5
 *                           (hmean4 8.6), sxy/sxz/syz lines 16.1
 *   update_velocity  35.1%  vx 11.0, vy 10.8, vz 10.5, buoyancy 2.7
 *   sponge_apply     11.2%   halo_exchange 8.8% (MPI_Waitall 6.5, of it
 *                           the receive's copy 2.8; pack 1.4; unpack 0.9)
 *   energy_norm 2.4% (+ MPI_Allreduce 0.2), model_build 0.7%, MPI_Init
 *   0.1%; source_inject, receivers_record, receivers_gather ~0.
 * 1. wf >= the updates and the sponge (87%), first of the data, not
 *    derived, on both ranks.
 * 2. Its fields: the six stresses together >= update_stress, the three
 *    velocities >= update_velocity, each field at least half its even
 *    share of its kernel; the stress group above the velocity group.
 * 3. sendbuf (the pack) + recvbuf (the waits) >= the exchange less the
 *    unpack (whose time is wf's); recvbuf >= sendbuf.
 * 4. energy >= energy_norm, a result well below wf.
 * Must not rank high: model and its arrays (built once, 1%, then only
 * read), sponge (read), the table layers, g, cfg, src, dt; the results
 * and bookkeeping: rec, rec.traces, all, energy_hist, t_phase, t_start,
 * t_loop, t_total, it, tp, ndiag, bytes_sent, plane_len, side_len; loop
 * indices and cell offsets (i, j, k, c, row), the requests req, nreq.
 * No rows: the kernels' restrict locals (vx .. syz, rho_inv, lam, mu; px,
 * py, pz) and their pointer parameters wf, m, g; halo_exchange's fld,
 * send_up/down, recv_up/down; pack/unpack_planes' fld, buf; lap's acc.
 * Time in MPI_Waitall, MPI_Allreduce, MPI_Reduce reaches a variable.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "seis3d.h"

#define MAX_DIAG 256

typedef struct {
  int nx, ny, nz, nt;   /* interior cells of the whole model, time steps */
  float h, courant, f0; /* spacing (m), fraction of the CFL limit, Hz */
  int sponge_width;
  float sponge_strength;
  int nline, nwell, diag_every;
} Config;

static Config parse_config(int argc, char **argv)
{
  Config c;
  c.nx = argc > 1 ? atoi(argv[1]) : 256;
  c.ny = argc > 2 ? atoi(argv[2]) : 96;
  c.nz = argc > 3 ? atoi(argv[3]) : 96;
  c.nt = argc > 4 ? atoi(argv[4]) : 200;
  c.h = 15.0f;
  c.courant = 0.8f;
  c.f0 = 8.0f;
  c.sponge_width = 6;
  c.sponge_strength = 0.35f / 6.0f;
  c.nline = c.nwell = 16;
  c.diag_every = 25;
  return c;
}

/* Adds the time since *since to *acc; returns the present time. */
static double lap(double *acc, double since)
{
  double now = MPI_Wtime();
  *acc += now - since;
  return now;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  double t_start = MPI_Wtime();

  Config cfg = parse_config(argc, argv);
  Grid g;
  grid_init(&g, cfg.nx, cfg.ny, cfg.nz, cfg.h, rank, nranks);

  Model model;
  model_alloc(&g, &model);
  model_build(&g, &model);

  /* 4th-order staggered scheme in 3D: vp dt / h <= 1 / (sqrt(3) (c1+|c2|)) */
  const float cfl = 1.0f / (sqrtf(3.0f) * (9.0f / 8.0f + 1.0f / 24.0f));
  const float dt = cfg.courant * cfl * cfg.h / model.vp_max;

  Wavefield wf;
  wavefield_alloc(&g, &wf);
  Sponge sponge;
  sponge_build(&g, &sponge, cfg.sponge_width, cfg.sponge_strength);
  halo_init(&g);

  Source src;
  source_init(&g, &src, cfg.nx / 2, cfg.ny / 2, cfg.nz / 4, cfg.f0, 1.0e12f);
  Receivers rec;
  receivers_init(&g, &rec, cfg.nline, cfg.nwell, cfg.sponge_width, cfg.nt);

  double t_phase[NPHASE] = {0.0};
  double energy[2] = {0.0, 0.0};
  double energy_hist[MAX_DIAG];
  int ndiag = 0;

  if (rank == 0)
    printf("seis3d: %d x %d x %d cells of %.0f m on %d ranks, %d steps of "
           "%.3e s\n  vp max %.0f m/s, Ricker %.1f Hz, sponge %d cells, %d "
           "stations\n",
           cfg.nx, cfg.ny, cfg.nz, (double)cfg.h, nranks, cfg.nt, (double)dt,
           (double)model.vp_max, (double)cfg.f0, cfg.sponge_width, rec.nrec);

  MPI_Barrier(MPI_COMM_WORLD);
  double t_loop = MPI_Wtime();
  for (int it = 0; it < cfg.nt; it++) {
    const float t = (float)it * dt;
    double tp = MPI_Wtime();

    update_velocity(&g, &wf, &model, dt);
    tp = lap(&t_phase[PH_VELOCITY], tp);
    halo_exchange(&g, &wf, HALO_VELOCITY);
    tp = lap(&t_phase[PH_HALO], tp);

    update_stress(&g, &wf, &model, dt);
    tp = lap(&t_phase[PH_STRESS], tp);
    source_inject(&g, &wf, &src, t + 0.5f * dt, dt);
    tp = lap(&t_phase[PH_SURVEY], tp);

    sponge_apply(&g, &wf, &sponge);
    tp = lap(&t_phase[PH_SPONGE], tp);
    halo_exchange(&g, &wf, HALO_STRESS);
    tp = lap(&t_phase[PH_HALO], tp);

    receivers_record(&rec, &wf, it);
    if ((it + 1) % cfg.diag_every == 0 && ndiag < MAX_DIAG) {
      energy_norm(&g, &wf, &model, energy);
      energy_hist[ndiag++] = energy[0] + energy[1];
      if (rank == 0)
        printf("step %4d  t %.3f s  kinetic %.6e J  strain %.6e J\n", it + 1,
               (double)(t + dt), energy[0], energy[1]);
    }
    lap(&t_phase[PH_SURVEY], tp);
  }
  double t_total = MPI_Wtime() - t_loop;

  float *all = receivers_gather(&rec, 0);
  if (rank == 0) {
    int ipeak = 0;
    for (int d = 1; d < ndiag; d++)
      if (energy_hist[d] > energy_hist[ipeak])
        ipeak = d;
    printf("energy peak %.6e J at step %d, final %.6e J (%.2f%% of peak)\n",
           energy_hist[ipeak], (ipeak + 1) * cfg.diag_every,
           energy_hist[ndiag - 1],
           100.0 * energy_hist[ndiag - 1] / energy_hist[ipeak]);
    print_trace_summary(all, &rec, cfg.nline, dt);
  }
  print_timers(t_phase, t_total, cfg.nt, halo_bytes());
  if (rank == 0)
    printf("wall time %.3f s\n", MPI_Wtime() - t_start);

  free(all);
  receivers_free(&rec);
  halo_free();
  sponge_free(&sponge);
  wavefield_free(&wf);
  model_free(&model);
  MPI_Finalize();
  return 0;
}
