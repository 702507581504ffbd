/* step.h: the right-hand side of the vorticity equation
 *   dw/dt + u . grad w = nu lap w,   lap psi = -w,  u = dpsi/dy, v = -dpsi/dx
 * and its low-storage RK3 time step. */
#ifndef SPECTRAL_STEP_H
#define SPECTRAL_STEP_H

#include "fft.h"
#include "spectral.h"

/* scratch fields of one evaluation of the right-hand side */
typedef struct {
  double complex *psi_hat;  /* stream function */
  double complex *u_hat, *v_hat;    /* velocity, destroyed by the inverse FFT */
  double complex *wx_hat, *wy_hat;  /* vorticity gradient, likewise */
  double *u, *v;            /* physical velocity */
  double *wx, *wy;          /* physical vorticity gradient */
  double *adv;              /* u . grad w */
} Fields;

int fields_alloc(Fields *f);
void fields_free(Fields *f);

int wavenumbers_init(Wavenumbers *wn);
void wavenumbers_free(Wavenumbers *wn);

/* zero every mode outside the 2/3 rule */
void dealias(const Wavenumbers *wn, double complex *hat);

/* rhs_hat = -dealias(FFT(u . grad w)) - nu k^2 w_hat */
void compute_rhs(FftPlan *plan, const Wavenumbers *wn, Fields *f,
                 const double complex *w_hat, double complex *rhs_hat);

/* one step of Williamson's 2N-storage RK3: dw_hat is the second register */
void rk3_step(FftPlan *plan, const Wavenumbers *wn, Fields *f,
              double complex *w_hat, double complex *dw_hat, double complex *rhs_hat);

#endif
