/* mpiwait: the atmosphere (rank 0). Each coupling step it computes the heat
 * flux into the ocean, sends it, asks for the ocean's new surface
 * temperature, advances the air while the ocean works, waits for the
 * temperature and relaxes the air towards it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "coupler.h"

#define TAG_FLUX 1
#define TAG_SST 2

void atmosphere_init(Atmosphere *atm, int n) {
  const double pi = 3.141592653589793;
  Grid *g = &atm->grid;
  g->nx = g->ny = n;
  g->dx = 1.0 / n;
  g->dt = 0.4 * g->dx;
  atm->temp = alloc_field(g, 0.0);
  atm->temp_new = alloc_field(g, 0.0);
  atm->wind_u = alloc_field(g, 0.0);
  atm->wind_v = alloc_field(g, 0.0);
  atm->flux = alloc_field(g, 0.0);
  atm->sst_in = alloc_field(g, 288.0);
  atm->substeps = 7;
  atm->smooth_passes = 2;
  atm->relax = 0.05;
  for (int j = 0; j < g->ny; j++)
    for (int i = 0; i < g->nx; i++) {
      double x = (i + 0.5) * g->dx, y = (j + 0.5) * g->dx;
      size_t k = IDX(g, i, j);
      atm->temp[k] = 280.0 + 10.0 * sin(2.0 * pi * x) * cos(pi * y);
      atm->wind_u[k] = 0.8 * cos(pi * y);
      atm->wind_v[k] = 0.3 * sin(2.0 * pi * x) * sin(pi * y);
    }
}

void atmosphere_free(Atmosphere *atm) {
  free(atm->temp);
  free(atm->temp_new);
  free(atm->wind_u);
  free(atm->wind_v);
  free(atm->flux);
  free(atm->sst_in);
}

/* Saturation vapour pressure over water (hPa), Magnus form. */
static inline double esat(double tk) {
  const double tc = tk - 273.15;
  return 6.112 * exp(17.67 * tc / (tc + 243.5));
}

/* Bulk formulae: sensible heat (exchange coefficient times wind speed times
 * the air-sea temperature difference), latent heat (from the humidity
 * deficit at 80% relative humidity), plus the sun. */
static void compute_fluxes(Atmosphere *atm, double time) {
  const Grid *g = &atm->grid;
  const double ch = 1.2e-3 * 1004.0, ce = 1.5e-3 * 2.5e6 * 0.622 / 1013.0;
  const double pi = 3.141592653589793;
  for (int j = 0; j < g->ny; j++) {
    const double y = (j + 0.5) * g->dx;
    const double sun = 200.0 * cos(pi * (y - 0.5)) * (1.0 + 0.1 * sin(2.0 * pi * time));
    for (int i = 0; i < g->nx; i++) {
      const size_t k = IDX(g, i, j);
      const double u = atm->wind_u[k], v = atm->wind_v[k];
      const double speed = sqrt(u * u + v * v + 0.01);
      const double sensible = ch * speed * (atm->temp[k] - atm->sst_in[k]);
      const double latent = ce * speed * (0.8 * esat(atm->temp[k]) - esat(atm->sst_in[k]));
      atm->flux[k] = sensible + 1e-3 * latent + sun;
    }
  }
}

static void advance_air(Atmosphere *atm) {
  for (int s = 0; s < atm->substeps; s++) {
    advect_upwind(&atm->grid, atm->wind_u, atm->wind_v, atm->temp, atm->temp_new);
    double *t = atm->temp;
    atm->temp = atm->temp_new;
    atm->temp_new = t;
  }
}

static void couple_to_sst(Atmosphere *atm) {
  const Grid *g = &atm->grid;
  const size_t n = (size_t)g->nx * g->ny;
  for (size_t k = 0; k < n; k++)
    atm->temp[k] += atm->relax * (atm->sst_in[k] - atm->temp[k]);
  for (int pass = 0; pass < atm->smooth_passes; pass++) {
    smooth5(g, atm->temp, atm->temp_new, 0.2);
    double *t = atm->temp;
    atm->temp = atm->temp_new;
    atm->temp_new = t;
  }
}

void atmosphere_run(Atmosphere *atm, Context *ctx, PipeStats *st) {
  const Grid *g = &atm->grid;
  const int n = g->nx * g->ny;
  MPI_Request req;
  double time = 0.0, t;
  for (int step = 0; step < ctx->nsteps; step++) {
    t = wall_time();
    compute_fluxes(atm, time);
    st->t_compute += wall_time() - t;

    t = wall_time();
    MPI_Send(atm->flux, n, MPI_DOUBLE, ctx->partner, TAG_FLUX, ctx->comm);
    st->t_send += wall_time() - t;
    st->bytes_sent += (long)n * (long)sizeof(double);
    MPI_Irecv(atm->sst_in, n, MPI_DOUBLE, ctx->partner, TAG_SST, ctx->comm, &req);

    t = wall_time();
    advance_air(atm);
    st->t_compute += wall_time() - t;

    t = wall_time();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    st->t_wait += wall_time() - t;
    st->bytes_recv += (long)n * (long)sizeof(double);

    t = wall_time();
    couple_to_sst(atm);
    st->t_compute += wall_time() - t;

    time += g->dt * atm->substeps;
    st->steps++;
    if ((step + 1) % ctx->barrier_every == 0) {
      t = wall_time();
      MPI_Barrier(ctx->comm);
      st->t_barrier += wall_time() - t;
      printf("  step %4d  mean air temperature %.8f\n", step + 1,
             field_sum(g, atm->temp) / n);
    }
  }
  st->checksum = field_sum(g, atm->temp) / n;
}
