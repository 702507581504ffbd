/* diag.c: energy, enstrophy and spectra of the spectral vorticity; the
 * energy budget dE/dt = -2 nu Z as a check of the time stepping. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"

double t_fft = 0.0, t_comm = 0.0, t_nonlin = 0.0;

/* Parseval: mean of |f|^2 = sum |f_hat|^2 / n^4 */
static double parseval_norm(void)
{
  const double n2 = (double)grid.n * (double)grid.n;
  return 1.0 / (n2 * n2);
}

void diag_integrals(const double complex *w_hat, const Wavenumbers *wn,
                    double *energy, double *enstrophy)
{
  double local[2] = {0.0, 0.0}, global[2];
  for (size_t idx = 0; idx < slab_size(); idx++) {
    const double w2 = creal(w_hat[idx]) * creal(w_hat[idx]) +
                      cimag(w_hat[idx]) * cimag(w_hat[idx]);
    local[0] += w2 * wn->inv_k2[idx];
    local[1] += w2;
  }
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, grid.comm);
  *energy = 0.5 * global[0] * parseval_norm();
  *enstrophy = 0.5 * global[1] * parseval_norm();
}

void diag_spectrum(const double complex *w_hat, const Wavenumbers *wn,
                   double *spec, int nshell)
{
  const double kscale = grid.length / (2.0 * 3.14159265358979323846);
  memset(spec, 0, (size_t)nshell * sizeof *spec);
  for (size_t idx = 0; idx < slab_size(); idx++) {
    if (wn->k2[idx] == 0.0)
      continue;
    const int shell = (int)(sqrt(wn->k2[idx]) * kscale + 0.5);
    if (shell >= nshell)
      continue;
    const double w2 = creal(w_hat[idx]) * creal(w_hat[idx]) +
                      cimag(w_hat[idx]) * cimag(w_hat[idx]);
    spec[shell] += 0.5 * w2 * wn->inv_k2[idx] * parseval_norm();
  }
  MPI_Allreduce(MPI_IN_PLACE, spec, nshell, MPI_DOUBLE, MPI_SUM, grid.comm);
}

void stats_init(Stats *st, double energy, double enstrophy)
{
  memset(st, 0, sizeof *st);
  st->energy0 = st->energy = energy;
  st->enstrophy0 = st->enstrophy = enstrophy;
}

void stats_update(Stats *st, double time, double energy, double enstrophy)
{
  const double span = time - st->time;
  if (span > 0.0) {
    st->dedt = (energy - st->energy) / span;
    st->dissipation = -grid.nu * (enstrophy + st->enstrophy);
    const double err = fabs(st->dedt - st->dissipation) / fabs(st->dissipation);
    if (err > st->budget_err)
      st->budget_err = err;
  }
  st->time = time;
  st->energy = energy;
  st->enstrophy = enstrophy;
  st->ndiag++;
}

double spectrum_slope(const double *spec, int kmin, int kmax)
{
  double sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0;
  int cnt = 0;
  for (int k = kmin; k <= kmax; k++) {
    if (spec[k] <= 0.0)
      continue;
    const double x = log((double)k), y = log(spec[k]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    cnt++;
  }
  if (cnt < 2)
    return 0.0;
  return (cnt * sxy - sx * sy) / (cnt * sxx - sx * sx);
}

void report_timers(double t_total)
{
  double mine[4] = {t_fft, t_comm, t_nonlin, t_total}, tmax[4];
  MPI_Reduce(mine, tmax, 4, MPI_DOUBLE, MPI_MAX, 0, grid.comm);
  if (grid.rank == 0)
    fprintf(stderr, "timers (max over %d ranks): fft %.3f s, alltoall %.3f s, "
            "products %.3f s, total %.3f s\n",
            grid.nranks, tmax[0], tmax[1], tmax[2], tmax[3]);
}
