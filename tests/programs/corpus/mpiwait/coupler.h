/* mpiwait: a two-component coupled model. Rank 0 runs a light atmosphere
 * that sends surface heat fluxes to rank 1 every coupling step; rank 1
 * runs a heavier ocean that solves for the sea-surface temperature with
 * those fluxes, sends it back, and then mixes and diagnoses its own state.
 * The atmosphere waits: in MPI_Send of the next flux field (the ocean is
 * still mixing and has not posted its receive) and in MPI_Wait for the
 * temperature it asked for (the ocean is still solving). */
#ifndef MPIWAIT_COUPLER_H
#define MPIWAIT_COUPLER_H

#include <mpi.h>

/* The communication context of a component. */
typedef struct Context {
  MPI_Comm comm;      /* duplicate of MPI_COMM_WORLD for the coupler */
  int rank, size;
  int partner;        /* the other component's rank */
  int nsteps;         /* coupling steps */
  int barrier_every;  /* steps between synchronised diagnostics */
} Context;

typedef struct Grid {
  int nx, ny;
  double dx, dt;
} Grid;

#define IDX(g, i, j) ((size_t)(j) * (size_t)(g)->nx + (size_t)(i))

/* Rank 0: air temperature carried by a wind, the flux sent each step and
 * the sea-surface temperature received back. */
typedef struct Atmosphere {
  Grid grid;
  double *temp;     /* air temperature */
  double *temp_new;
  double *wind_u, *wind_v;
  double *flux;     /* heat flux into the ocean: what is sent */
  double *sst_in;   /* sea-surface temperature: what is received */
  int substeps;     /* advection substeps per coupling step */
  int smooth_passes; /* diffusion passes after the coupling */
  double relax;     /* strength of the coupling to the SST */
} Atmosphere;

/* Rank 1: sea-surface temperature, the flux it receives, the temperature
 * it returns, and its diagnostics. */
typedef struct Ocean {
  Grid grid;
  double *sst;       /* sea-surface temperature */
  double *sst_iter;  /* Jacobi iterate */
  double *rhs;
  double *flux_in;   /* received flux */
  double *sst_out;   /* what is sent back */
  double *grad;      /* gradient magnitude, for the mixing */
  double *heat;      /* heat content per column of the grid */
  int jacobi_iters;
  int mix_passes;
  double kappa;
} Ocean;

/* Timers and counters of one rank. */
typedef struct PipeStats {
  double t_compute, t_send, t_recv, t_wait, t_barrier;
  long bytes_sent, bytes_recv;
  int steps;
  double checksum;
} PipeStats;

/* kernels.c */
double wall_time(void);
double *alloc_field(const Grid *g, double value);
void advect_upwind(const Grid *g, const double *u, const double *v, const double *q,
                   double *qnew);
void smooth5(const Grid *g, const double *q, double *qnew, double alpha);
double field_sum(const Grid *g, const double *q);

/* atmosphere.c (rank 0) */
void atmosphere_init(Atmosphere *atm, int n);
void atmosphere_run(Atmosphere *atm, Context *ctx, PipeStats *st);
void atmosphere_free(Atmosphere *atm);

/* ocean.c (rank 1) */
void ocean_init(Ocean *oc, int n);
void ocean_run(Ocean *oc, Context *ctx, PipeStats *st);
void ocean_free(Ocean *oc);

#endif
