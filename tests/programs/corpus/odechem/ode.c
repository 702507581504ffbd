/* ode.c - Cash-Karp embedded Runge-Kutta 4(5) with an elementary step size
 * controller (Press et al., "Numerical Recipes", 16.2), behind an opaque
 * handle. The stage vectors k1..k6, the stage argument ytmp, the 5th-order
 * solution ynew and the error estimate yerr live in one allocation made by
 * ode_create(); statistics and timers are kept in the object.
 */
#define _POSIX_C_SOURCE 199309L
#include "ode.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct OdeIntegrator {
  int n;
  double rtol, atol, hmin;
  long max_steps;
  double *work; /* 9 n doubles: the vectors below point into it */
  double *k1, *k2, *k3, *k4, *k5, *k6;
  double *ytmp, *ynew, *yerr;
  OdeStats stats;
};

/* Cash-Karp tableau. */
static const double a2 = 0.2, a3 = 0.3, a4 = 0.6, a5 = 1.0, a6 = 0.875;
static const double b21 = 0.2;
static const double b31 = 3.0 / 40.0, b32 = 9.0 / 40.0;
static const double b41 = 0.3, b42 = -0.9, b43 = 1.2;
static const double b51 = -11.0 / 54.0, b52 = 2.5, b53 = -70.0 / 27.0,
                    b54 = 35.0 / 27.0;
static const double b61 = 1631.0 / 55296.0, b62 = 175.0 / 512.0,
                    b63 = 575.0 / 13824.0, b64 = 44275.0 / 110592.0,
                    b65 = 253.0 / 4096.0;
static const double c1 = 37.0 / 378.0, c3 = 250.0 / 621.0, c4 = 125.0 / 594.0,
                    c6 = 512.0 / 1771.0;
static const double dc1 = 37.0 / 378.0 - 2825.0 / 27648.0,
                    dc3 = 250.0 / 621.0 - 18575.0 / 48384.0,
                    dc4 = 125.0 / 594.0 - 13525.0 / 55296.0,
                    dc5 = -277.0 / 14336.0, dc6 = 512.0 / 1771.0 - 0.25;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

OdeIntegrator *ode_create(int n, double rtol, double atol, double hmin) {
  OdeIntegrator *ode = calloc(1, sizeof *ode);
  if (!ode)
    return NULL;
  ode->n = n;
  ode->rtol = rtol;
  ode->atol = atol;
  ode->hmin = hmin;
  ode->max_steps = 100000;
  ode->work = calloc((size_t)9 * (size_t)n, sizeof(double));
  if (!ode->work) {
    free(ode);
    return NULL;
  }
  ode->k1 = ode->work;
  ode->k2 = ode->k1 + n;
  ode->k3 = ode->k2 + n;
  ode->k4 = ode->k3 + n;
  ode->k5 = ode->k4 + n;
  ode->k6 = ode->k5 + n;
  ode->ytmp = ode->k6 + n;
  ode->ynew = ode->ytmp + n;
  ode->yerr = ode->ynew + n;
  return ode;
}

void ode_destroy(OdeIntegrator *ode) {
  if (!ode)
    return;
  free(ode->work);
  free(ode);
}

void ode_set_max_steps(OdeIntegrator *ode, long max_steps) {
  ode->max_steps = max_steps;
}

const OdeStats *ode_stats(const OdeIntegrator *ode) { return &ode->stats; }

void ode_reset_stats(OdeIntegrator *ode) {
  memset(&ode->stats, 0, sizeof ode->stats);
}

/* One call of the right-hand side, counted. */
static void eval(OdeIntegrator *ode, ode_rhs_fn rhs, void *ctx, double t,
                 const double *y, double *dydt) {
  rhs(t, y, dydt, ctx);
  ode->stats.rhs_evals++;
}

/* One Cash-Karp step of size h from (t, y), k1 = f(t, y) already known:
 * the 5th-order solution into ynew, the embedded error into yerr. */
static void ck_step(OdeIntegrator *ode, ode_rhs_fn rhs, void *ctx, double t,
                    const double *y, double h) {
  const int n = ode->n;
  double *k1 = ode->k1, *k2 = ode->k2, *k3 = ode->k3, *k4 = ode->k4,
         *k5 = ode->k5, *k6 = ode->k6, *ytmp = ode->ytmp;
  int i;
  for (i = 0; i < n; i++)
    ytmp[i] = y[i] + h * b21 * k1[i];
  eval(ode, rhs, ctx, t + a2 * h, ytmp, k2);
  for (i = 0; i < n; i++)
    ytmp[i] = y[i] + h * (b31 * k1[i] + b32 * k2[i]);
  eval(ode, rhs, ctx, t + a3 * h, ytmp, k3);
  for (i = 0; i < n; i++)
    ytmp[i] = y[i] + h * (b41 * k1[i] + b42 * k2[i] + b43 * k3[i]);
  eval(ode, rhs, ctx, t + a4 * h, ytmp, k4);
  for (i = 0; i < n; i++)
    ytmp[i] =
        y[i] + h * (b51 * k1[i] + b52 * k2[i] + b53 * k3[i] + b54 * k4[i]);
  eval(ode, rhs, ctx, t + a5 * h, ytmp, k5);
  for (i = 0; i < n; i++)
    ytmp[i] = y[i] + h * (b61 * k1[i] + b62 * k2[i] + b63 * k3[i] +
                          b64 * k4[i] + b65 * k5[i]);
  eval(ode, rhs, ctx, t + a6 * h, ytmp, k6);
  for (i = 0; i < n; i++) {
    ode->ynew[i] = y[i] + h * (c1 * k1[i] + c3 * k3[i] + c4 * k4[i] + c6 * k6[i]);
    ode->yerr[i] = h * (dc1 * k1[i] + dc3 * k3[i] + dc4 * k4[i] +
                        dc5 * k5[i] + dc6 * k6[i]);
  }
}

/* Scaled maximum norm of the error estimate. */
static double error_norm(const OdeIntegrator *ode, const double *y) {
  double emax = 0.0;
  for (int i = 0; i < ode->n; i++) {
    double scale = ode->atol + ode->rtol * fmax(fabs(y[i]), fabs(ode->ynew[i]));
    double e = fabs(ode->yerr[i]) / scale;
    if (e > emax)
      emax = e;
  }
  return emax;
}

int ode_integrate(OdeIntegrator *ode, ode_rhs_fn rhs, void *ctx, double t0,
                  double t1, double *y, double *h) {
  const double safety = 0.9, grow_max = 5.0, shrink_min = 0.2;
  double start = now();
  double t = t0;
  double step = *h > 0.0 ? *h : 1e-3 * (t1 - t0);
  long nsteps = 0;
  int status = 0;
  ode->stats.integrations++;
  eval(ode, rhs, ctx, t, y, ode->k1);
  while (t < t1) {
    if (nsteps++ >= ode->max_steps) {
      ode->stats.failures++;
      status = -1;
      break;
    }
    int last = t + step >= t1;
    double hs = last ? t1 - t : step;
    ck_step(ode, rhs, ctx, t, y, hs);
    double err = error_norm(ode, y);
    if (err <= 1.0 || hs <= ode->hmin) {
      t = last ? t1 : t + hs;
      memcpy(y, ode->ynew, (size_t)ode->n * sizeof(double));
      ode->stats.steps++;
      double fac = err > 1e-10 ? safety * pow(err, -0.2) : grow_max;
      if (!last || fac < 1.0)
        step = hs * fmin(grow_max, fac);
      if (t < t1)
        eval(ode, rhs, ctx, t, y, ode->k1);
    } else {
      ode->stats.rejected++;
      step = fmax(ode->hmin, hs * fmax(shrink_min, safety * pow(err, -0.25)));
    }
  }
  *h = step;
  double elapsed = now() - start;
  ode->stats.t_step += elapsed;
  if (elapsed > ode->stats.t_max)
    ode->stats.t_max = elapsed;
  return status;
}
