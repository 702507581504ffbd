/* vtrans.h: the driver's settings, the source and the batch statistics. */
#ifndef VTRANS_H
#define VTRANS_H

#include <mpi.h>

#include "geometry.h"
#include "particle.h"
#include "physics.h"
#include "tally.h"

#define MAX_BATCHES 64

typedef struct {
  int n_particles; /* per rank and batch */
  int n_batches;
  int n_inactive;
  int n_grid;      /* energy points of a heavy nuclide */
  int nx, ny, nz;
  double pitch;
  unsigned long long seed;
} Settings;

/* Mean and standard deviation of the k estimators over the active
 * batches (the batch means are the samples). */
typedef struct {
  int n;
  double sum[3], sum_sq[3];
  double mean[3], stddev[3];
} KStats;

void bank_init(ParticleBank *b, int cap);
void fission_bank_init(FissionBank *fb, int cap);
void source_initial(ParticleBank *b, const Mesh *mesh, int n, Rng *src_rng);
void source_from_fission(ParticleBank *b, const FissionBank *fb,
                         const Mesh *mesh, int n, Rng *src_rng);
void start_histories(ParticleBank *b, uint64_t first_id, uint64_t seed);

void kstats_add(KStats *s, const double *k);
void kstats_finish(KStats *s);
void print_timings(const double *timings, int n, MPI_Comm comm);
void print_flux_map(const TallyStats *s, const Mesh *mesh);

#endif
