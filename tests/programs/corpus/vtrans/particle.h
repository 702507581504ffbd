/* particle.h: the particle state and the banks that hold it. */
#ifndef VTRANS_PARTICLE_H
#define VTRANS_PARTICLE_H

#include "rng.h"
#include "xs.h"

typedef struct {
  double x, y, z;    /* position (cm) */
  double u, v, w;    /* direction cosines */
  double E;          /* energy (eV) */
  double wgt;        /* statistical weight */
  int cell;          /* index into the mesh */
  int alive;
  int n_collisions;
  int xs_material;   /* material and energy the cached cross sections are for */
  double xs_energy;
  MacroXs xs;        /* macroscopic cross sections at (E, material) */
  Rng rng;           /* the history's own stream */
} Particle;

/* The particles of one batch on this rank. */
typedef struct {
  Particle *p;
  int n, cap;
} ParticleBank;

/* A fission neutron born in this batch: the next batch's source. */
typedef struct {
  double x, y, z;
  double E;
} FissionSite;

typedef struct {
  FissionSite *site;
  int n, cap;
  int overflow;
} FissionBank;

/* Event counters of one rank (bookkeeping). */
typedef struct {
  long histories, lookups, collisions, crossings, leaks;
  long scatters, captures, fissions;
} EventCounters;

#endif
