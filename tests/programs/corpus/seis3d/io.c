/* io.c -- the energy diagnostic, the seismogram checksums and the timer
 * report. Only rank 0 prints. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "seis3d.h"

/* Kinetic and strain energy (J) of the whole model into e[0], e[1]:
 *   K = 1/2 rho |v|^2,
 *   W = 1/(4 mu) (s:s - lam / (3 lam + 2 mu) tr(s)^2)
 * with every component taken at its own point (a norm, not exact). */
void energy_norm(const Grid *g, const Wavefield *wf, const Model *m,
                 double e[2])
{
  double local[2] = {0.0, 0.0};
  const double vol = (double)g->dx * g->dy * g->dz;
  for (int k = NGHOST; k < g->nz - NGHOST; k++)
    for (int j = NGHOST; j < g->ny - NGHOST; j++) {
      double kin = 0.0, str = 0.0;
      for (int i = NGHOST; i < g->nx - NGHOST; i++) {
        const size_t c = IX(g, i, j, k);
        const float v2 = wf->vx[c] * wf->vx[c] + wf->vy[c] * wf->vy[c] +
                         wf->vz[c] * wf->vz[c];
        const float tr = wf->sxx[c] + wf->syy[c] + wf->szz[c];
        const float ss = wf->sxx[c] * wf->sxx[c] + wf->syy[c] * wf->syy[c] +
                         wf->szz[c] * wf->szz[c] +
                         2.0f * (wf->sxy[c] * wf->sxy[c] +
                                 wf->sxz[c] * wf->sxz[c] +
                                 wf->syz[c] * wf->syz[c]);
        const float lam = m->lam[c], mu = m->mu[c];
        kin += 0.5 * v2 / m->rho_inv[c];
        str += (ss - lam / (3.0f * lam + 2.0f * mu) * tr * tr) / (4.0f * mu);
      }
      local[0] += kin;
      local[1] += str;
    }
  local[0] *= vol;
  local[1] *= vol;
  MPI_Allreduce(local, e, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

void print_trace_summary(const float *all, const Receivers *rec, int nline,
                         float dt)
{
  double total = 0.0;
  printf("seismograms (vz), %d stations x %d samples:\n", rec->nrec,
         rec->nt);
  for (int r = 0; r < rec->nrec; r++) {
    const float *tr = all + (size_t)r * (size_t)rec->nt;
    double sum = 0.0;
    float peak = 0.0f;
    int ipeak = 0;
    for (int it = 0; it < rec->nt; it++) {
      sum += fabsf(tr[it]);
      if (fabsf(tr[it]) > peak) {
        peak = fabsf(tr[it]);
        ipeak = it;
      }
    }
    total += sum;
    if (r % 4 == 0 || r == nline)
      printf("  %-4s %2d  (%3d,%3d,%3d)  sum|vz| %.6e  peak %.4e m/s at "
             "%.3f s\n",
             r < nline ? "line" : "well", r < nline ? r : r - nline,
             rec->gi[r], rec->gj[r], rec->gk[r], sum, peak,
             (double)ipeak * dt);
  }
  printf("trace checksum %.8e\n", total);
}

void print_timers(const double t_phase[NPHASE], double t_total, int nsteps,
                  double halo_bytes)
{
  static const char *const name[NPHASE] = {"velocity", "stress", "sponge",
                                           "halo", "survey"};
  double tmax[NPHASE];
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Reduce(t_phase, tmax, NPHASE, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank != 0)
    return;
  printf("timers over %d steps (slowest rank, s):\n", nsteps);
  for (int p = 0; p < NPHASE; p++)
    printf("  %-9s %8.3f\n", name[p], tmax[p]);
  printf("  total     %8.3f   halo traffic %.1f MB a rank\n", t_total,
         halo_bytes / 1e6);
}
