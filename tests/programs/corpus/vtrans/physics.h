/* physics.h: collisions and the transport of one history. */
#ifndef VTRANS_PHYSICS_H
#define VTRANS_PHYSICS_H

#include "geometry.h"
#include "particle.h"
#include "tally.h"

#define E_CUTOFF 1.0e-5
#define KT_WATER 0.0253 /* eV, room temperature */

enum { RX_ELASTIC, RX_CAPTURE, RX_FISSION, N_REACTIONS };

/* What a reaction needs besides the particle: the nuclide it hit, its
 * microscopic cross sections at the particle's energy and where the
 * fission neutrons and the k estimate go. */
typedef struct {
  const Nuclide *nuc;
  MicroXs micro;
  FissionBank *fbank;
  Tally *tally;
  EventCounters *counters;
  double keff;
} Collision;

typedef void (*ReactionFn)(Particle *p, Collision *c);

extern const ReactionFn reaction_table[N_REACTIONS];

double sample_watt(Rng *rng);
void isotropic_direction(Rng *rng, double *u, double *v, double *w);
void collide(Particle *p, FissionBank *fbank, Tally *tally,
             EventCounters *counters, double keff);
void transport_history(Particle *p, const Mesh *mesh, Tally *tally,
                       FissionBank *fbank, EventCounters *counters,
                       double keff);

#endif
