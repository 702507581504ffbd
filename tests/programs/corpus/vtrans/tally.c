#include <stdlib.h>
#include <string.h>

#include "tally.h"

void tally_init(Tally *t, int n_cells) {
  t->n_cells = n_cells;
  t->score = calloc((size_t)n_cells * N_SCORES, sizeof(double));
  tally_reset(t);
}

void tally_reset(Tally *t) {
  memset(t->score, 0, (size_t)t->n_cells * N_SCORES * sizeof(double));
  t->k_track = t->k_collision = t->k_absorption = 0.0;
  t->source_weight = 0.0;
}

void tally_free(Tally *t) { free(t->score); }

/* Track-length estimators: flux in the particle's group, nu-fission for k. */
void score_track(Tally *t, const Particle *p, double distance) {
  double *s = t->score + (size_t)p->cell * N_SCORES;
  double flux = p->wgt * distance;
  if (p->E < E_GROUP_BOUNDARY)
    s[SCORE_FLUX_THERMAL] += flux;
  else
    s[SCORE_FLUX_FAST] += flux;
  t->k_track += flux * p->xs.nu_fission;
}

/* Collision estimators of the reaction rates. */
void score_collision(Tally *t, const Particle *p) {
  double *s = t->score + (size_t)p->cell * N_SCORES;
  double r = p->wgt / p->xs.total;
  s[SCORE_ABSORPTION] += r * p->xs.absorption;
  s[SCORE_FISSION] += r * p->xs.fission;
  t->k_collision += r * p->xs.nu_fission;
}

void tally_stats_init(TallyStats *s, int n_cells) {
  size_t n = (size_t)n_cells * N_SCORES;
  s->n_cells = n_cells;
  s->n_active = 0;
  s->batch = calloc(3 * n, sizeof(double));
  s->sum = s->batch + n;
  s->sum_sq = s->sum + n;
}

void tally_stats_free(TallyStats *s) { free(s->batch); }

/* Sums the batch's tallies over the ranks: the k estimators on every rank
 * (k_global: track, collision, absorption estimates), the cell scores on
 * rank 0, where the active batches are accumulated. */
void tally_reduce(const Tally *t, TallyStats *s, double *k_global, int active,
                  MPI_Comm comm) {
  double local[4] = {t->k_track, t->k_collision, t->k_absorption,
                     t->source_weight};
  double global[4];
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Allreduce(local, global, 4, MPI_DOUBLE, MPI_SUM, comm);
  for (int e = 0; e < 3; e++)
    k_global[e] = global[e] / global[3];

  int n = t->n_cells * N_SCORES;
  MPI_Reduce(t->score, s->batch, n, MPI_DOUBLE, MPI_SUM, 0, comm);
  if (rank != 0 || !active)
    return;
  s->n_active++;
  for (int i = 0; i < n; i++) {
    double x = s->batch[i] / global[3];
    s->sum[i] += x;
    s->sum_sq[i] += x * x;
  }
}
