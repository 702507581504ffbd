/* tally.h: per-cell reaction-rate tallies of one batch, and their
 * statistics over the active batches. */
#ifndef VTRANS_TALLY_H
#define VTRANS_TALLY_H

#include <mpi.h>

#include "particle.h"

#define N_GROUPS 2 /* thermal (< 0.625 eV) and fast */
#define E_GROUP_BOUNDARY 0.625

enum { SCORE_FLUX_THERMAL, SCORE_FLUX_FAST, SCORE_ABSORPTION, SCORE_FISSION,
       N_SCORES };

typedef struct {
  int n_cells;
  double *score;     /* [n_cells * N_SCORES] this batch, this rank */
  double k_track;    /* track-length estimate of nu-fission production */
  double k_collision;
  double k_absorption;
  double source_weight;
} Tally;

/* The global tallies on rank 0: the last batch and the sums over the
 * active batches for means and standard deviations. */
typedef struct {
  int n_cells;
  int n_active;
  double *batch;     /* [n_cells * N_SCORES] reduced over the ranks */
  double *sum;
  double *sum_sq;
} TallyStats;

void tally_init(Tally *t, int n_cells);
void tally_reset(Tally *t);
void tally_free(Tally *t);
void score_track(Tally *t, const Particle *p, double distance);
void score_collision(Tally *t, const Particle *p);
void tally_stats_init(TallyStats *s, int n_cells);
void tally_stats_free(TallyStats *s);
void tally_reduce(const Tally *t, TallyStats *s, double *k_global, int active,
                  MPI_Comm comm);

#endif
