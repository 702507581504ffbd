/* mpiwait: the ocean (rank 1). Each coupling step it receives the flux,
 * solves the implicit diffusion of the surface temperature with it (Jacobi
 * iterations), returns the temperature, and then mixes where the gradients
 * are steep and updates its heat-content diagnostics. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coupler.h"

#define TAG_FLUX 1
#define TAG_SST 2

void ocean_init(Ocean *oc, int n) {
  const double pi = 3.141592653589793;
  Grid *g = &oc->grid;
  g->nx = g->ny = n;
  g->dx = 1.0 / n;
  g->dt = 0.4 * g->dx;
  oc->sst = alloc_field(g, 0.0);
  oc->sst_iter = alloc_field(g, 0.0);
  oc->rhs = alloc_field(g, 0.0);
  oc->flux_in = alloc_field(g, 0.0);
  oc->sst_out = alloc_field(g, 0.0);
  oc->grad = alloc_field(g, 0.0);
  oc->heat = calloc((size_t)g->ny, sizeof(double));
  oc->jacobi_iters = 26;
  oc->mix_passes = 15;
  oc->kappa = 2e-4;
  for (int j = 0; j < g->ny; j++)
    for (int i = 0; i < g->nx; i++) {
      double x = (i + 0.5) * g->dx, y = (j + 0.5) * g->dx;
      oc->sst[IDX(g, i, j)] = 288.0 + 6.0 * cos(pi * (y - 0.5)) + 0.5 * sin(6.0 * pi * x);
    }
}

void ocean_free(Ocean *oc) {
  free(oc->sst);
  free(oc->sst_iter);
  free(oc->rhs);
  free(oc->flux_in);
  free(oc->sst_out);
  free(oc->grad);
  free(oc->heat);
}

/* (1 + 4a) T - a (sum of the neighbours) = T_old + dt * flux / C */
static void solve_sst(Ocean *oc) {
  const Grid *g = &oc->grid;
  const size_t n = (size_t)g->nx * g->ny;
  const double heat_capacity = 4.0e6 * 50.0;
  const double a = oc->kappa * g->dt / (g->dx * g->dx) * 400.0;
  const double diag_inv = 1.0 / (1.0 + 4.0 * a);
  for (size_t k = 0; k < n; k++)
    oc->rhs[k] = oc->sst[k] + 3.0e4 * g->dt * oc->flux_in[k] / heat_capacity;
  for (int it = 0; it < oc->jacobi_iters; it++) {
    const double *src = (it % 2 == 0) ? oc->sst : oc->sst_iter;
    double *dst = (it % 2 == 0) ? oc->sst_iter : oc->sst;
    for (int j = 0; j < g->ny; j++) {
      const int jm = j > 0 ? j - 1 : j, jp = j < g->ny - 1 ? j + 1 : j;
      for (int i = 0; i < g->nx; i++) {
        const int im = i > 0 ? i - 1 : g->nx - 1, ip = i < g->nx - 1 ? i + 1 : 0;
        const double nb = src[IDX(g, im, j)] + src[IDX(g, ip, j)] + src[IDX(g, i, jm)] +
                          src[IDX(g, i, jp)];
        dst[IDX(g, i, j)] = (oc->rhs[IDX(g, i, j)] + a * nb) * diag_inv;
      }
    }
  }
  if (oc->jacobi_iters % 2 == 1)
    memcpy(oc->sst, oc->sst_iter, sizeof(double) * n);
  memcpy(oc->sst_out, oc->sst, sizeof(double) * n);
}

/* Gradient magnitude, then mixing passes that smooth strongly where the
 * gradient is steep, then the heat content of every row. */
static void mix_and_diagnose(Ocean *oc) {
  const Grid *g = &oc->grid;
  const double threshold = 4.0;
  for (int j = 0; j < g->ny; j++) {
    const int jm = j > 0 ? j - 1 : j, jp = j < g->ny - 1 ? j + 1 : j;
    for (int i = 0; i < g->nx; i++) {
      const int im = i > 0 ? i - 1 : g->nx - 1, ip = i < g->nx - 1 ? i + 1 : 0;
      const double gx = oc->sst[IDX(g, ip, j)] - oc->sst[IDX(g, im, j)];
      const double gy = oc->sst[IDX(g, i, jp)] - oc->sst[IDX(g, i, jm)];
      oc->grad[IDX(g, i, j)] = 0.5 * sqrt(gx * gx + gy * gy) / g->dx;
    }
  }
  for (int pass = 0; pass < oc->mix_passes; pass++) {
    for (int j = 0; j < g->ny; j++) {
      const int jm = j > 0 ? j - 1 : j, jp = j < g->ny - 1 ? j + 1 : j;
      for (int i = 0; i < g->nx; i++) {
        const int im = i > 0 ? i - 1 : g->nx - 1, ip = i < g->nx - 1 ? i + 1 : 0;
        const size_t k = IDX(g, i, j);
        const double avg = 0.25 * (oc->sst[IDX(g, im, j)] + oc->sst[IDX(g, ip, j)] +
                                   oc->sst[IDX(g, i, jm)] + oc->sst[IDX(g, i, jp)]);
        const double alpha = oc->grad[k] > threshold ? 0.4 : 0.02;
        oc->sst_iter[k] = oc->sst[k] + alpha * (avg - oc->sst[k]);
      }
    }
    double *t = oc->sst;
    oc->sst = oc->sst_iter;
    oc->sst_iter = t;
  }
  for (int j = 0; j < g->ny; j++) {
    double s = 0.0;
    for (int i = 0; i < g->nx; i++)
      s += oc->sst[IDX(g, i, j)];
    oc->heat[j] = s * g->dx;
  }
}

void ocean_run(Ocean *oc, Context *ctx, PipeStats *st) {
  const Grid *g = &oc->grid;
  const int n = g->nx * g->ny;
  double t;
  for (int step = 0; step < ctx->nsteps; step++) {
    t = wall_time();
    MPI_Recv(oc->flux_in, n, MPI_DOUBLE, ctx->partner, TAG_FLUX, ctx->comm, MPI_STATUS_IGNORE);
    st->t_recv += wall_time() - t;
    st->bytes_recv += (long)n * (long)sizeof(double);

    t = wall_time();
    solve_sst(oc);
    st->t_compute += wall_time() - t;

    t = wall_time();
    MPI_Send(oc->sst_out, n, MPI_DOUBLE, ctx->partner, TAG_SST, ctx->comm);
    st->t_send += wall_time() - t;
    st->bytes_sent += (long)n * (long)sizeof(double);

    t = wall_time();
    mix_and_diagnose(oc);
    st->t_compute += wall_time() - t;

    st->steps++;
    if ((step + 1) % ctx->barrier_every == 0) {
      t = wall_time();
      MPI_Barrier(ctx->comm);
      st->t_barrier += wall_time() - t;
    }
  }
  double h = 0.0;
  for (int j = 0; j < g->ny; j++)
    h += oc->heat[j];
  st->checksum = h;
}
