/* spectral.h: the grid shared by every part of the solver. The physical
 * fields are n x n real arrays split in rows over the ranks (row y, column
 * x); the spectral fields are the transposed slab: rank r holds the rows
 * kx = kx0 .. kx0 + nloc - 1, each with all n ky columns. */
#ifndef SPECTRAL_H
#define SPECTRAL_H

#include <complex.h>
#include <stddef.h>

#include <mpi.h>

typedef struct {
  int n;           /* points per side (power of two) */
  int nloc;        /* physical rows / spectral kx rows of this rank */
  int y0;          /* first physical row of this rank */
  int kx0;         /* first kx row of this rank */
  int rank, nranks;
  MPI_Comm comm;
  double length;   /* side of the periodic box (2 pi) */
  double nu;       /* kinematic viscosity */
  double dt;       /* time step */
} Grid;

/* defined in main.c */
extern Grid grid;

/* wavenumbers of the local spectral slab, set once */
typedef struct {
  double *kx;              /* nloc: kx of each local row */
  double *ky;              /* n: ky of each column */
  double *k2;              /* nloc * n: |k|^2 */
  double *inv_k2;          /* nloc * n: 1/|k|^2, 0 for the mean mode */
  unsigned char *dealias;  /* nloc * n: 1 inside the 2/3 rule */
} Wavenumbers;

/* signed wavenumber of FFT index i */
static inline int wavenumber(int i, int n) { return i < n / 2 ? i : i - n; }

static inline size_t slab_size(void) { return (size_t)grid.nloc * (size_t)grid.n; }

#endif
