/* transpose.h: the global transpose of a slab-decomposed n x n complex
 * array and the 2D transforms built on it. */
#ifndef SPECTRAL_TRANSPOSE_H
#define SPECTRAL_TRANSPOSE_H

#include "fft.h"

/* out = transpose(in): in holds nloc rows of the n x n array, out the
 * nloc rows of its transpose; through plan->sendbuf and plan->recvbuf */
void transpose_global(FftPlan *plan, const double complex *in, double complex *out);

/* phys (nloc rows of y, real) -> spec (nloc rows of kx, all ky) */
void fft2d_forward(FftPlan *plan, const double *phys, double complex *spec);

/* spec -> phys, normalised; spec is destroyed (transformed along ky in
 * place), as a complex-to-real FFTW plan destroys its input */
void fft2d_inverse(FftPlan *plan, double complex *spec, double *phys);

#endif
