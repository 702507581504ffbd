/* fft.c: iterative Cooley-Tukey (decimation in time) over a precomputed
 * bit-reversal permutation and a table of n/2 twiddle factors. */
#include <math.h>
#include <stdlib.h>

#include "fft.h"

static const double PI = 3.14159265358979323846;

void fft_plan_destroy(FftPlan *plan)
{
  if (plan == NULL)
    return;
  free(plan->twiddle);
  free(plan->bitrev);
  free(plan->work);
  free(plan->sendbuf);
  free(plan->recvbuf);
  free(plan);
}

FftPlan *fft_plan_create(int n, int nloc, MPI_Comm comm)
{
  if (n < 2 || (n & (n - 1)) != 0 || nloc < 1)
    return NULL;
  FftPlan *plan = calloc(1, sizeof *plan);
  if (plan == NULL)
    return NULL;
  plan->n = n;
  plan->nloc = nloc;
  plan->comm = comm;
  MPI_Comm_size(comm, &plan->nranks);
  while ((1 << plan->log2n) < n)
    plan->log2n++;

  size_t slab = (size_t)nloc * (size_t)n;
  plan->twiddle = malloc((size_t)(n / 2) * sizeof *plan->twiddle);
  plan->bitrev = malloc((size_t)n * sizeof *plan->bitrev);
  plan->work = malloc(slab * sizeof *plan->work);
  plan->sendbuf = malloc(slab * sizeof *plan->sendbuf);
  plan->recvbuf = malloc(slab * sizeof *plan->recvbuf);
  if (!plan->twiddle || !plan->bitrev || !plan->work || !plan->sendbuf ||
      !plan->recvbuf) {
    fft_plan_destroy(plan);
    return NULL;
  }

  for (int k = 0; k < n / 2; k++) {
    double angle = -2.0 * PI * (double)k / (double)n;
    plan->twiddle[k] = cos(angle) + I * sin(angle);
  }
  for (int i = 0; i < n; i++) {
    int r = 0;
    for (int b = 0; b < plan->log2n; b++)
      if (i & (1 << b))
        r |= 1 << (plan->log2n - 1 - b);
    plan->bitrev[i] = r;
  }
  return plan;
}

void fft_1d(const FftPlan *plan, double complex *x, int sign)
{
  const int n = plan->n;
  const int *rev = plan->bitrev;
  const double complex *tw = plan->twiddle;

  for (int i = 0; i < n; i++) {
    int j = rev[i];
    if (j > i) {
      double complex t = x[i];
      x[i] = x[j];
      x[j] = t;
    }
  }
  for (int len = 2; len <= n; len <<= 1) {
    const int half = len >> 1;
    const int stride = n / len;
    for (int start = 0; start < n; start += len) {
      double complex *lo = x + start;
      double complex *hi = x + start + half;
      for (int k = 0; k < half; k++) {
        double complex w = tw[k * stride];
        if (sign == FFT_BACKWARD)
          w = conj(w);
        /* the product written out: no C99 NaN recovery in the inner loop */
        double br = creal(w) * creal(hi[k]) - cimag(w) * cimag(hi[k]);
        double bi = creal(w) * cimag(hi[k]) + cimag(w) * creal(hi[k]);
        double complex b = br + I * bi;
        double complex a = lo[k];
        lo[k] = a + b;
        hi[k] = a - b;
      }
    }
  }
}

void fft_rows(FftPlan *plan, double complex *rows, int nrows, int sign)
{
  for (int r = 0; r < nrows; r++)
    fft_1d(plan, rows + (size_t)r * (size_t)plan->n, sign);
  plan->ntransforms += nrows;
}
