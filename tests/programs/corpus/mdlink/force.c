/* mdlink: Lennard-Jones forces over the half neighbour list. */
#include "md.h"

/* Computes atoms->f for the local atoms and returns this rank's share of the
 * potential energy; *virial gets its share of the virial and *npairs is
 * advanced by the number of list entries visited. */
double force_lj(Atoms *atoms, const NeighList *nl, const Params *p, double *virial,
                long *npairs) {
  const int nlocal = atoms->nlocal;
  const int nall = atoms->nlocal + atoms->nghost;
  const double *x = atoms->x;
  double *f = atoms->f;
  const double cutsq = p->cutforce * p->cutforce;
  const double sigma2 = p->sigma * p->sigma;
  const double eps48 = 48.0 * p->epsilon, eps4 = 4.0 * p->epsilon;
  double epot = 0.0, vir = 0.0;
  long visited = 0;

  for (int i = 0; i < 3 * nall; i++)
    f[i] = 0.0;

  for (int i = 0; i < nlocal; i++) {
    const int *list = &nl->neighbors[(size_t)i * nl->maxneighs];
    const int nn = nl->numneigh[i];
    const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
    double fxi = 0.0, fyi = 0.0, fzi = 0.0;
    visited += nn;
    for (int k = 0; k < nn; k++) {
      const int j = list[k];
      const double dx = xi - x[3 * j];
      const double dy = yi - x[3 * j + 1];
      const double dz = zi - x[3 * j + 2];
      const double rsq = dx * dx + dy * dy + dz * dz;
      if (rsq < cutsq) {
        const double sr2 = sigma2 / rsq;
        const double sr6 = sr2 * sr2 * sr2;
        const double fpair = eps48 * sr6 * (sr6 - 0.5) / rsq;
        fxi += dx * fpair;
        fyi += dy * fpair;
        fzi += dz * fpair;
        const double e = eps4 * sr6 * (sr6 - 1.0);
        if (j < nlocal) {
          f[3 * j] -= dx * fpair;
          f[3 * j + 1] -= dy * fpair;
          f[3 * j + 2] -= dz * fpair;
          epot += e;
          vir += rsq * fpair;
        } else {
          epot += 0.5 * e;
          vir += 0.5 * rsq * fpair;
        }
      }
    }
    f[3 * i] += fxi;
    f[3 * i + 1] += fyi;
    f[3 * i + 2] += fzi;
  }
  *virial = vir;
  *npairs += visited;
  return epot;
}
