/* step.c: pseudo-spectral right-hand side and time step. Derivatives are
 * products with i k in spectral space; the advection term is formed in
 * physical space and truncated by the 2/3 rule. */
#include <stdlib.h>

#include "diag.h"
#include "step.h"
#include "transpose.h"

int fields_alloc(Fields *f)
{
  const size_t slab = slab_size();
  f->psi_hat = malloc(slab * sizeof *f->psi_hat);
  f->u_hat = malloc(slab * sizeof *f->u_hat);
  f->v_hat = malloc(slab * sizeof *f->v_hat);
  f->wx_hat = malloc(slab * sizeof *f->wx_hat);
  f->wy_hat = malloc(slab * sizeof *f->wy_hat);
  f->u = malloc(slab * sizeof *f->u);
  f->v = malloc(slab * sizeof *f->v);
  f->wx = malloc(slab * sizeof *f->wx);
  f->wy = malloc(slab * sizeof *f->wy);
  f->adv = malloc(slab * sizeof *f->adv);
  return f->psi_hat && f->u_hat && f->v_hat && f->wx_hat && f->wy_hat && f->u &&
         f->v && f->wx && f->wy && f->adv ? 0 : -1;
}

void fields_free(Fields *f)
{
  free(f->psi_hat);
  free(f->u_hat);
  free(f->v_hat);
  free(f->wx_hat);
  free(f->wy_hat);
  free(f->u);
  free(f->v);
  free(f->wx);
  free(f->wy);
  free(f->adv);
}

int wavenumbers_init(Wavenumbers *wn)
{
  const int n = grid.n, nloc = grid.nloc;
  const double kscale = 2.0 * 3.14159265358979323846 / grid.length;
  wn->kx = malloc((size_t)nloc * sizeof *wn->kx);
  wn->ky = malloc((size_t)n * sizeof *wn->ky);
  wn->k2 = malloc(slab_size() * sizeof *wn->k2);
  wn->inv_k2 = malloc(slab_size() * sizeof *wn->inv_k2);
  wn->dealias = malloc(slab_size() * sizeof *wn->dealias);
  if (!wn->kx || !wn->ky || !wn->k2 || !wn->inv_k2 || !wn->dealias)
    return -1;

  for (int i = 0; i < nloc; i++)
    wn->kx[i] = kscale * wavenumber(grid.kx0 + i, n);
  for (int j = 0; j < n; j++)
    wn->ky[j] = kscale * wavenumber(j, n);
  for (int i = 0; i < nloc; i++) {
    const int ikx = abs(wavenumber(grid.kx0 + i, n));
    for (int j = 0; j < n; j++) {
      const size_t idx = (size_t)i * n + j;
      const int iky = abs(wavenumber(j, n));
      const double k2 = wn->kx[i] * wn->kx[i] + wn->ky[j] * wn->ky[j];
      wn->k2[idx] = k2;
      wn->inv_k2[idx] = k2 > 0.0 ? 1.0 / k2 : 0.0;
      wn->dealias[idx] = 3 * ikx < n && 3 * iky < n;
    }
  }
  return 0;
}

void wavenumbers_free(Wavenumbers *wn)
{
  free(wn->kx);
  free(wn->ky);
  free(wn->k2);
  free(wn->inv_k2);
  free(wn->dealias);
}

void dealias(const Wavenumbers *wn, double complex *hat)
{
  const size_t slab = slab_size();
  for (size_t idx = 0; idx < slab; idx++)
    if (!wn->dealias[idx])
      hat[idx] = 0.0;
}

/* psi, u, v and grad w in spectral space, from w */
static void velocity_from_vorticity(const Wavenumbers *wn, Fields *f,
                                    const double complex *w_hat)
{
  for (int i = 0; i < grid.nloc; i++) {
    const double kx = wn->kx[i];
    for (int j = 0; j < grid.n; j++) {
      const size_t idx = (size_t)i * grid.n + j;
      const double ky = wn->ky[j];
      const double complex w = w_hat[idx];
      const double complex psi = w * wn->inv_k2[idx];
      f->psi_hat[idx] = psi;
      f->u_hat[idx] = (-ky * cimag(psi)) + I * (ky * creal(psi));
      f->v_hat[idx] = (kx * cimag(psi)) - I * (kx * creal(psi));
      f->wx_hat[idx] = (-kx * cimag(w)) + I * (kx * creal(w));
      f->wy_hat[idx] = (-ky * cimag(w)) + I * (ky * creal(w));
    }
  }
}

static void advection_products(Fields *f)
{
  const size_t slab = slab_size();
  for (size_t i = 0; i < slab; i++)
    f->adv[i] = f->u[i] * f->wx[i] + f->v[i] * f->wy[i];
}

void compute_rhs(FftPlan *plan, const Wavenumbers *wn, Fields *f,
                 const double complex *w_hat, double complex *rhs_hat)
{
  velocity_from_vorticity(wn, f, w_hat);
  fft2d_inverse(plan, f->u_hat, f->u);
  fft2d_inverse(plan, f->v_hat, f->v);
  fft2d_inverse(plan, f->wx_hat, f->wx);
  fft2d_inverse(plan, f->wy_hat, f->wy);

  double t0 = MPI_Wtime();
  advection_products(f);
  t_nonlin += MPI_Wtime() - t0;

  fft2d_forward(plan, f->adv, rhs_hat);

  const size_t slab = slab_size();
  for (size_t idx = 0; idx < slab; idx++) {
    const double complex adv = wn->dealias[idx] ? rhs_hat[idx] : 0.0;
    rhs_hat[idx] = -adv - grid.nu * wn->k2[idx] * w_hat[idx];
  }
}

static const double rk_a[3] = {0.0, -5.0 / 9.0, -153.0 / 128.0};
static const double rk_b[3] = {1.0 / 3.0, 15.0 / 16.0, 8.0 / 15.0};

void rk3_step(FftPlan *plan, const Wavenumbers *wn, Fields *f,
              double complex *w_hat, double complex *dw_hat, double complex *rhs_hat)
{
  const size_t slab = slab_size();
  for (int stage = 0; stage < 3; stage++) {
    compute_rhs(plan, wn, f, w_hat, rhs_hat);
    const double a = rk_a[stage], b = rk_b[stage], dt = grid.dt;
    for (size_t idx = 0; idx < slab; idx++) {
      dw_hat[idx] = a * dw_hat[idx] + dt * rhs_hat[idx];
      w_hat[idx] += b * dw_hat[idx];
    }
  }
}
