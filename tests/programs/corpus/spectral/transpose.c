/* transpose.c: slab transposes through MPI_Alltoall. Block d of the send
 * buffer holds columns d*m .. d*m+m-1 of every local row (m = nloc), stored
 * column by column, so that after the exchange each block is a run of
 * contiguous pieces of the receiver's rows. */
#include <string.h>

#include "diag.h"
#include "spectral.h"
#include "transpose.h"

static void pack_blocks(FftPlan *plan, const double complex *in)
{
  const int n = plan->n, m = plan->nloc;
  for (int d = 0; d < plan->nranks; d++) {
    double complex *blk = plan->sendbuf + (size_t)d * m * m;
    for (int r = 0; r < m; r++) {
      const double complex *row = in + (size_t)r * n + (size_t)d * m;
      for (int c = 0; c < m; c++)
        blk[(size_t)c * m + r] = row[c];
    }
  }
}

static void unpack_blocks(const FftPlan *plan, double complex *out)
{
  const int n = plan->n, m = plan->nloc;
  for (int s = 0; s < plan->nranks; s++) {
    const double complex *blk = plan->recvbuf + (size_t)s * m * m;
    for (int c = 0; c < m; c++)
      memcpy(out + (size_t)c * n + (size_t)s * m, blk + (size_t)c * m,
             (size_t)m * sizeof *out);
  }
}

void transpose_global(FftPlan *plan, const double complex *in, double complex *out)
{
  const int count = plan->nloc * plan->nloc;
  pack_blocks(plan, in);
  double t0 = MPI_Wtime();
  MPI_Alltoall(plan->sendbuf, count, MPI_C_DOUBLE_COMPLEX, plan->recvbuf, count,
               MPI_C_DOUBLE_COMPLEX, plan->comm);
  t_comm += MPI_Wtime() - t0;
  unpack_blocks(plan, out);
}

void fft2d_forward(FftPlan *plan, const double *phys, double complex *spec)
{
  const size_t slab = (size_t)plan->nloc * (size_t)plan->n;
  for (size_t i = 0; i < slab; i++)
    plan->work[i] = phys[i];

  double t0 = MPI_Wtime();
  fft_rows(plan, plan->work, plan->nloc, FFT_FORWARD);   /* along x */
  t_fft += MPI_Wtime() - t0;

  transpose_global(plan, plan->work, spec);

  t0 = MPI_Wtime();
  fft_rows(plan, spec, plan->nloc, FFT_FORWARD);         /* along y */
  t_fft += MPI_Wtime() - t0;
}

void fft2d_inverse(FftPlan *plan, double complex *spec, double *phys)
{
  const size_t slab = (size_t)plan->nloc * (size_t)plan->n;
  const double scale = 1.0 / ((double)plan->n * (double)plan->n);

  double t0 = MPI_Wtime();
  fft_rows(plan, spec, plan->nloc, FFT_BACKWARD);        /* along ky */
  t_fft += MPI_Wtime() - t0;

  transpose_global(plan, spec, plan->work);

  t0 = MPI_Wtime();
  fft_rows(plan, plan->work, plan->nloc, FFT_BACKWARD);  /* along kx */
  t_fft += MPI_Wtime() - t0;

  for (size_t i = 0; i < slab; i++)
    phys[i] = creal(plan->work[i]) * scale;
}
