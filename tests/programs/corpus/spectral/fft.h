/* fft.h: radix-2 complex FFTs of the rows of a slab, and the plan that
 * holds the tables and the buffers of the distributed 2D transform. */
#ifndef SPECTRAL_FFT_H
#define SPECTRAL_FFT_H

#include <complex.h>

#include <mpi.h>

#define FFT_FORWARD (-1)
#define FFT_BACKWARD (+1)

typedef struct {
  int n;                    /* transform length, a power of two */
  int log2n;
  int nloc;                 /* rows of the local slab */
  int nranks;
  MPI_Comm comm;
  double complex *twiddle;  /* n/2 roots exp(-2 pi i k / n) */
  int *bitrev;              /* n: bit-reversed index */
  double complex *work;     /* nloc * n: physical-side rows being transformed */
  double complex *sendbuf;  /* nloc * n: blocks packed for MPI_Alltoall */
  double complex *recvbuf;  /* nloc * n: blocks received */
  long ntransforms;         /* 1D transforms done */
} FftPlan;

FftPlan *fft_plan_create(int n, int nloc, MPI_Comm comm);
void fft_plan_destroy(FftPlan *plan);

/* in place, unnormalised; sign FFT_FORWARD or FFT_BACKWARD */
void fft_1d(const FftPlan *plan, double complex *x, int sign);
void fft_rows(FftPlan *plan, double complex *rows, int nrows, int sign);

#endif
