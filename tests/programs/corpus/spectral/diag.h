/* diag.h: integral diagnostics, the energy spectrum and the phase timers. */
#ifndef SPECTRAL_DIAG_H
#define SPECTRAL_DIAG_H

#include "spectral.h"

/* seconds spent in the 1D FFTs, the MPI_Alltoall and the products (diag.c) */
extern double t_fft, t_comm, t_nonlin;

typedef struct {
  double energy0, enstrophy0;  /* at t = 0 */
  double energy, enstrophy;    /* at the last diagnostic */
  double time;                 /* of the last diagnostic */
  double dedt;                 /* dE/dt over the last interval */
  double dissipation;          /* -2 nu Z averaged over the last interval */
  double budget_err;           /* max |dE/dt - dissipation| / |dissipation| */
  int ndiag;
} Stats;

/* E = <u^2 + v^2>/2 and Z = <w^2>/2 from w_hat (forward FFT unnormalised) */
void diag_integrals(const double complex *w_hat, const Wavenumbers *wn,
                    double *energy, double *enstrophy);

/* spec[k] = energy in the shell k - 1/2 <= |k| < k + 1/2, all ranks */
void diag_spectrum(const double complex *w_hat, const Wavenumbers *wn,
                   double *spec, int nshell);

void stats_init(Stats *st, double energy, double enstrophy);
void stats_update(Stats *st, double time, double energy, double enstrophy);

/* least-squares slope of log E(k) against log k over kmin..kmax */
double spectrum_slope(const double *spec, int kmin, int kmax);

/* prints the timers (max over ranks) on rank 0's stderr */
void report_timers(double t_total);

#endif
