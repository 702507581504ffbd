/* stats.c: batch statistics and the end-of-run summaries. */
#include <math.h>
#include <stdio.h>

#include "vtrans.h"

void kstats_add(KStats *s, const double *k) {
  for (int e = 0; e < 3; e++) {
    s->sum[e] += k[e];
    s->sum_sq[e] += k[e] * k[e];
  }
  s->n++;
}

void kstats_finish(KStats *s) {
  for (int e = 0; e < 3; e++) {
    if (s->n == 0) {
      s->mean[e] = s->stddev[e] = 0.0;
      continue;
    }
    s->mean[e] = s->sum[e] / s->n;
    double var = s->n > 1
                     ? (s->sum_sq[e] / s->n - s->mean[e] * s->mean[e]) / (s->n - 1)
                     : 0.0;
    s->stddev[e] = var > 0.0 ? sqrt(var) : 0.0;
  }
}

/* Mean and slowest batch over the ranks. */
void print_timings(const double *timings, int n, MPI_Comm comm) {
  double slowest[MAX_BATCHES];
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Reduce(timings, slowest, n, MPI_DOUBLE, MPI_MAX, 0, comm);
  if (rank != 0)
    return;
  double total = 0.0, worst = 0.0;
  for (int b = 0; b < n; b++) {
    total += slowest[b];
    if (slowest[b] > worst)
      worst = slowest[b];
  }
  printf("batches: %d, %.3f s in total, %.4f s per batch (slowest %.4f s)\n", n,
         total, total / n, worst);
}

/* Thermal flux (mean and relative error) along the core's midplane row. */
void print_flux_map(const TallyStats *s, const Mesh *mesh) {
  if (s->n_active == 0)
    return;
  int k = mesh->nz / 2, j = mesh->ny / 2;
  printf("thermal flux, midplane row (relative error):\n");
  for (int i = 0; i < mesh->nx; i++) {
    int c = (k * mesh->ny + j) * mesh->nx + i;
    int at = c * N_SCORES + SCORE_FLUX_THERMAL;
    double mean = s->sum[at] / s->n_active;
    double var = s->n_active > 1
                     ? (s->sum_sq[at] / s->n_active - mean * mean) / (s->n_active - 1)
                     : 0.0;
    double rel = mean > 0.0 && var > 0.0 ? sqrt(var) / mean : 0.0;
    printf("  %2d %10.4e (%5.3f)\n", i, mean, rel);
  }
}
