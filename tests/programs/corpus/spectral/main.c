/* spectral: 2D incompressible Navier-Stokes in vorticity form, pseudo-
 * spectral, on the periodic box [0, 2 pi)^2 with n x n points split in rows
 * over the MPI ranks: dw/dt + u.grad w = nu lap w, lap psi = -w, (u, v) =
 * (psi_y, -psi_x). main's spectral fields are double complex arrays in the
 * transposed slab (nloc kx rows of n ky): w_hat (the state), dw_hat (the
 * second register of Williamson's low-storage RK3) and nl_hat (the right-
 * hand side). Fields fld (step.h) is the scratch of one right-hand side:
 * psi_hat, u_hat, v_hat, wx_hat, wy_hat and the physical double arrays u, v,
 * wx, wy, adv. fft_plan_create (fft.c) returns FftPlan *plan: twiddle and
 * bitrev (set there, read-only after) and the buffers of the 2D transform,
 * work (physical-side rows), sendbuf and recvbuf. fft2d_inverse(plan, spec,
 * phys) (transpose.c) transforms spec in place along ky (fft_rows ->
 * fft_1d), transposes it through MPI_Alltoall (pack_blocks into
 * plan->sendbuf, the exchange into plan->recvbuf, unpack_blocks' memcpy
 * into plan->work), transforms plan->work along kx and writes its real part
 * to phys; fft2d_forward copies phys into plan->work, transforms along x,
 * transposes into spec and transforms spec along y. Each of the 3 stages of
 * rk3_step (step.c) is a compute_rhs: velocity_from_vorticity (-> fld.*_hat),
 * four inverse transforms (fld.u_hat, v_hat, wx_hat, wy_hat -> fld.u, v, wx,
 * wy), advection_products (-> fld.adv), one forward transform (fld.adv ->
 * nl_hat), the 2/3-rule mask wn.dealias and the viscous term (-> nl_hat);
 * then dw_hat and w_hat. The global Grid grid (defined here, read through
 * extern) and Wavenumbers wn are set up once; diag.c's globals t_fft,
 * t_comm, t_nonlin, main's Stats stats and spec_hist[record][k] are records.
 *   usage: mpirun -np 2 spectral [-n 256 -steps 180 -dt 5e-3 -nu 2e-4 -diag 20]
 * Held out of tuning (issue 30, round 9). Expected ranking, from a
 * code-centric profile (blame record -F 2000, mpicc -g -O2, clang-19;
 * report --by-function and blame dump: 8,211 samples of 2 ranks, quiet
 * machine, 2.05 s a rank; 2.46 s wall):
 *   rk3_step 98.4% = compute_rhs 97.1% (fft2d_inverse 75.0%, fft2d_forward
 *   17.9%) + its own update of dw_hat and w_hat 1.4%. fft_1d 59.1% in all:
 *   the inverse pass along ky, in place on fld.u_hat, v_hat, wx_hat, wy_hat
 *   25.3%; the inverse pass along kx on plan->work 23.2%; the forward pass
 *   along x on plan->work 5.3%; the forward pass along y on nl_hat 5.3%.
 *   transpose_global 31.8%: pack_blocks 21.1% (-> plan->sendbuf),
 *   MPI_Alltoall 8.9% (-> plan->recvbuf; 7.7% / 9.2% on rank 0 / 1),
 *   unpack_blocks 1.8% (memcpy: 1.2% -> plan->work, 0.5% -> nl_hat).
 *   fft2d_inverse's real part (-> fld.u, v, wx, wy) 1.4%, fft2d_forward's
 *   copy (-> plan->work) 0.4%, velocity_from_vorticity 2.6% (-> fld),
 *   advection_products 0.9% (-> fld.adv), compute_rhs's truncation and
 *   viscous term 0.9% (-> nl_hat); initial_vorticity 0.4%, diagnostics
 *   0.1%, MPI_Init 0.4%. Two more quiet runs (8,373 and 7,699 samples):
 *   fft_1d 55.9 / 60.1%, pack_blocks 20.1 / 22.1%, MPI_Alltoall 14.0 /
 *   7.8%; on a loaded machine MPI_Alltoall grew to 40-52% (the ranks wait
 *   for each other) and every compute share shrank with it.
 *  1. plan >= 0.8 x (transpose_global + 0.45 x fft_1d) (~60%): first of
 *     main's data, not derived. plan.work >= 0.8 x the kx and x passes of
 *     fft_1d (~30%); plan.sendbuf >= 0.8 x pack_blocks; plan.recvbuf >=
 *     0.8 x MPI_Alltoall (MPI time reaches data).
 *  2. fld (~30%) >= 0.8 x (0.4 x fft_1d + velocity_from_vorticity), below
 *     plan: fld.u_hat, v_hat, wx_hat, wy_hat each ~ 1/4 of the ky pass (~6%,
 *     >= 0.07 x fft_1d, within a factor 2 of one another); fld.u, v, wx, wy,
 *     adv below 2% each (one copy or product a stage).
 *  3. nl_hat (~7%) >= 0.07 x fft_1d (its forward y pass, its unpack, the
 *     truncation), below fld.
 *  4. w_hat, dw_hat: listed, data structures, not derived; their own share
 *     is the RK update (~1.4% together); inclusive blame may lift w_hat
 *     through the recurrence w_hat <- dw_hat <- nl_hat <- fld <- w_hat, never
 *     above rk3_step.
 * Low: wn and all of its arrays (kx, ky, k2, inv_k2, dealias: set once, read
 * every stage), plan.twiddle, plan.bitrev (read-only after the factory),
 * plan.ntransforms (a counter), w (the initial and the final vorticity,
 * < 1%), the global grid (written in main's setup only); records below the
 * data, derived or < 2%: the globals t_fft, t_comm, t_nonlin, stats (and
 * .energy, .enstrophy, .dedt, .dissipation, .budget_err), spec_hist,
 * energy, enstrophy, nrec, opt, t_start, t_loop, err, err_local, wloc,
 * wglob, nshell, nrec_max, slab; diag_integrals' local and global;
 * fld.psi_hat (< 1%: one of the five stores of velocity_from_vorticity,
 * read by nothing in the loop); loop indices i, j, r, c, d, s, k, b, m, v,
 * idx, len, start, stage, step anywhere. No rows: the parameters
 * that carry main's arrays down (compute_rhs' and rk3_step's plan, wn, f,
 * w_hat, dw_hat, rhs_hat; velocity_from_vorticity's f, w_hat;
 * advection_products' f; fft2d_forward's and fft2d_inverse's plan, spec,
 * phys; transpose_global's in, out; pack_blocks' in, unpack_blocks' out;
 * fft_rows' rows; fft_1d's x; diag_spectrum's spec, the row spec_hist[nrec]
 * of main's array), the pointers into rows (pack_blocks' blk and row,
 * unpack_blocks' blk, fft_1d's lo, hi, tw, rev), the scalars of one point
 * or one call (velocity_from_vorticity's w, psi, kx, ky; fft_1d's w, a, b,
 * t, half, stride; compute_rhs's adv, t0; rk3_step's a, b, dt;
 * transpose_global's count, t0); no MPI globals (ompi_mpi_comm_world).
 * Time in MPI_Alltoall never "reaches no variable". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fft.h"
#include "spectral.h"
#include "step.h"
#include "transpose.h"

#define MAX_RECORDS 512

Grid grid;

typedef struct {
  int n, steps, diag_every;
  double dt, nu;
} Options;

static Options parse_options(int argc, char **argv)
{
  Options o = {256, 180, 20, 5.0e-3, 2.0e-4};
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *opt = argv[i], *val = argv[i + 1];
    if (!strcmp(opt, "-n"))
      o.n = atoi(val);
    else if (!strcmp(opt, "-steps"))
      o.steps = atoi(val);
    else if (!strcmp(opt, "-diag"))
      o.diag_every = atoi(val);
    else if (!strcmp(opt, "-dt"))
      o.dt = atof(val);
    else if (!strcmp(opt, "-nu"))
      o.nu = atof(val);
  }
  if (o.steps < 1)
    o.steps = 1;
  if (o.diag_every < 1)
    o.diag_every = 1;
  if (o.steps / o.diag_every + 2 > MAX_RECORDS)
    o.diag_every = o.steps / (MAX_RECORDS - 2) + 1;
  return o;
}

/* Gaussian vortices of zero net circulation, with NMODES low modes of
 * pseudo-random wavevector and phase on top (amplitude ~ 1/|k|); a function
 * of the global position only, so that any number of ranks starts alike */
static const struct { double x, y, amp, radius; } vortices[] = {
  {2.0, 3.1, 8.0, 0.40}, {4.3, 3.2, -8.0, 0.40}, {3.1, 1.2, 6.0, 0.30},
  {3.2, 5.1, -6.0, 0.30}, {1.0, 5.5, 5.0, 0.25}, {5.4, 0.8, -5.0, 0.25},
};

#define NMODES 16

static double lcg_uniform(uint64_t *state)
{
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*state >> 11) / 9007199254740992.0;
}

static double periodic_offset(double d, double length)
{
  while (d > 0.5 * length)
    d -= length;
  while (d < -0.5 * length)
    d += length;
  return d;
}

static void initial_vorticity(double *w)
{
  const double h = grid.length / grid.n;
  const int nvort = (int)(sizeof vortices / sizeof vortices[0]);
  double mode_amp[NMODES], mode_phase[NMODES];
  int mode_kx[NMODES], mode_ky[NMODES];
  uint64_t seed = 20240531u;
  for (int m = 0; m < NMODES; m++) {
    mode_kx[m] = 1 + (int)(8.0 * lcg_uniform(&seed));
    mode_ky[m] = (int)(17.0 * lcg_uniform(&seed)) - 8;
    const double kmag = sqrt((double)(mode_kx[m] * mode_kx[m] + mode_ky[m] * mode_ky[m]));
    mode_amp[m] = 2.0 * lcg_uniform(&seed) / kmag;
    mode_phase[m] = 6.283185307179586 * lcg_uniform(&seed);
  }
  for (int r = 0; r < grid.nloc; r++) {
    const double y = (grid.y0 + r) * h;
    for (int c = 0; c < grid.n; c++) {
      const double x = c * h;
      double val = 0.0;
      for (int v = 0; v < nvort; v++) {
        const double dx = periodic_offset(x - vortices[v].x, grid.length);
        const double dy = periodic_offset(y - vortices[v].y, grid.length);
        const double r2 = (dx * dx + dy * dy) / (vortices[v].radius * vortices[v].radius);
        val += vortices[v].amp * exp(-r2);
      }
      for (int m = 0; m < NMODES; m++)
        val += mode_amp[m] * cos(mode_kx[m] * x + mode_ky[m] * y + mode_phase[m]);
      w[(size_t)r * grid.n + c] = val;
    }
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  double t_start = MPI_Wtime();
  grid.comm = MPI_COMM_WORLD;
  MPI_Comm_rank(grid.comm, &grid.rank);
  MPI_Comm_size(grid.comm, &grid.nranks);

  Options opt = parse_options(argc, argv);
  if (opt.n < 8 || (opt.n & (opt.n - 1)) != 0 || opt.n % grid.nranks != 0) {
    if (grid.rank == 0)
      fprintf(stderr, "spectral: n = %d must be a power of two >= 8 and a "
              "multiple of the %d ranks\n", opt.n, grid.nranks);
    MPI_Finalize();
    return 1;
  }
  grid.n = opt.n;
  grid.nloc = opt.n / grid.nranks;
  grid.y0 = grid.kx0 = grid.rank * grid.nloc;
  grid.length = 2.0 * 3.14159265358979323846;
  grid.nu = opt.nu;
  grid.dt = opt.dt;

  FftPlan *plan = fft_plan_create(grid.n, grid.nloc, grid.comm);
  Wavenumbers wn;
  Fields fld;
  const size_t slab = slab_size();
  double *w = malloc(slab * sizeof *w);
  double complex *w_hat = malloc(slab * sizeof *w_hat);
  double complex *dw_hat = calloc(slab, sizeof *dw_hat);
  double complex *nl_hat = malloc(slab * sizeof *nl_hat);
  const int nshell = grid.n / 2;
  const int nrec_max = opt.steps / opt.diag_every + 2;
  double (*spec_hist)[nshell] = calloc((size_t)nrec_max, sizeof *spec_hist);
  if (!plan || wavenumbers_init(&wn) || fields_alloc(&fld) || !w || !w_hat ||
      !dw_hat || !nl_hat || !spec_hist)
    MPI_Abort(grid.comm, 2);

  /* initial condition, and a check of the transform pair on it */
  initial_vorticity(w);
  fft2d_forward(plan, w, w_hat);
  memcpy(fld.u_hat, w_hat, slab * sizeof *w_hat);
  fft2d_inverse(plan, fld.u_hat, fld.u);
  double err_local = 0.0, err;
  for (size_t i = 0; i < slab; i++)
    err_local = fmax(err_local, fabs(fld.u[i] - w[i]));
  MPI_Allreduce(&err_local, &err, 1, MPI_DOUBLE, MPI_MAX, grid.comm);
  dealias(&wn, w_hat);
  if (grid.kx0 == 0)
    w_hat[0] = 0.0;  /* no mean vorticity on a periodic box */

  Stats stats;
  double energy, enstrophy;
  int nrec = 0;
  diag_integrals(w_hat, &wn, &energy, &enstrophy);
  stats_init(&stats, energy, enstrophy);
  diag_spectrum(w_hat, &wn, spec_hist[nrec++], nshell);
  if (grid.rank == 0) {
    printf("spectral: 2D Navier-Stokes, %d x %d on %d ranks, nu %.2e, dt %.2e, "
           "%d RK3 steps\n", grid.n, grid.n, grid.nranks, grid.nu, grid.dt, opt.steps);
    printf("transform round trip: %s\n", err < 1e-10 ? "ok (error < 1e-10)" : "FAILED");
    printf("step %5d  t %7.4f  E %.10f  Z %.10f\n", 0, 0.0, energy, enstrophy);
  }

  double t_loop = MPI_Wtime();
  for (int step = 1; step <= opt.steps; step++) {
    rk3_step(plan, &wn, &fld, w_hat, dw_hat, nl_hat);
    if (step % opt.diag_every == 0 || step == opt.steps) {
      const double t = step * grid.dt;
      diag_integrals(w_hat, &wn, &energy, &enstrophy);
      stats_update(&stats, t, energy, enstrophy);
      diag_spectrum(w_hat, &wn, spec_hist[nrec++], nshell);
      if (grid.rank == 0)
        printf("step %5d  t %7.4f  E %.10f  Z %.10f  dE/dt %+.5e  -2nuZ %+.5e\n",
               step, t, energy, enstrophy, stats.dedt, stats.dissipation);
    }
  }
  t_loop = MPI_Wtime() - t_loop;

  /* the final vorticity in physical space (w_hat is not needed any more) */
  fft2d_inverse(plan, w_hat, w);
  double wloc[2] = {0.0, 0.0}, wglob[2];
  for (size_t i = 0; i < slab; i++) {
    wloc[0] = fmax(wloc[0], fabs(w[i]));
    wloc[1] += w[i] * w[i];
  }
  MPI_Allreduce(&wloc[0], &wglob[0], 1, MPI_DOUBLE, MPI_MAX, grid.comm);
  MPI_Allreduce(&wloc[1], &wglob[1], 1, MPI_DOUBLE, MPI_SUM, grid.comm);

  if (grid.rank == 0) {
    const int shells[] = {1, 2, 4, 8, 16, 32, 64};
    printf("E(k)      k:");
    for (int s = 0; s < 7; s++)
      printf(" %9d", shells[s]);
    printf("\n  initial   :");
    for (int s = 0; s < 7; s++)
      printf(" %9.3e", spec_hist[0][shells[s] < nshell ? shells[s] : 0]);
    printf("\n  final     :");
    for (int s = 0; s < 7; s++)
      printf(" %9.3e", spec_hist[nrec - 1][shells[s] < nshell ? shells[s] : 0]);
    printf("\nspectral slope over k = 8..32: %.3f initial, %.3f final\n",
           spectrum_slope(spec_hist[0], 8, 32 < nshell ? 32 : nshell - 1),
           spectrum_slope(spec_hist[nrec - 1], 8, 32 < nshell ? 32 : nshell - 1));
    printf("E/E0 %.8f  Z/Z0 %.8f  max energy budget error %.3e over %d records\n",
           stats.energy / stats.energy0, stats.enstrophy / stats.enstrophy0,
           stats.budget_err, nrec);
    printf("final max |w| %.8f  <w^2>/2 %.10f\n", wglob[0],
           0.5 * wglob[1] / ((double)grid.n * grid.n));
    fflush(stdout);
  }
  if (grid.rank == 0)
    fprintf(stderr, "%ld 1D FFTs a rank, loop %.3f s\n", plan->ntransforms, t_loop);
  report_timers(MPI_Wtime() - t_start);

  free(spec_hist);
  free(nl_hat);
  free(dw_hat);
  free(w_hat);
  free(w);
  fields_free(&fld);
  wavenumbers_free(&wn);
  fft_plan_destroy(plan);
  MPI_Finalize();
  return 0;
}
