/* physics.c: the reactions, selected through a table of function
 * pointers, and the choice of nuclide and reaction at a collision. */
#include <math.h>

#include "physics.h"

#define PI 3.14159265358979323846

void isotropic_direction(Rng *rng, double *u, double *v, double *w) {
  double mu = 2.0 * rng_uniform(rng) - 1.0;
  double phi = 2.0 * PI * rng_uniform(rng);
  double s = sqrt(1.0 - mu * mu);
  *u = mu;
  *v = s * cos(phi);
  *w = s * sin(phi);
}

/* Watt fission spectrum, a = 0.988 MeV, b = 2.249 / MeV (U-235), by
 * rejection on a Maxwellian (in MeV; returned in eV). */
double sample_watt(Rng *rng) {
  const double a = 0.988, b = 2.249;
  const double k = 1.0 + a * b / 8.0;
  const double l = (k + sqrt(k * k - 1.0)) / a;
  const double m = a * l - 1.0;
  for (;;) {
    double x = -log(rng_uniform(rng));
    double y = -log(rng_uniform(rng));
    if ((y - m * (x + 1.0)) * (y - m * (x + 1.0)) <= b * l * x)
      return 1.0e6 * x / l;
  }
}

/* Elastic scattering off a nucleus at rest, isotropic in the centre of
 * mass; below a few kT the neutron is in equilibrium with the water and
 * leaves with an energy drawn from the Maxwellian. */
static void scatter_elastic(Particle *p, Collision *c) {
  double A = c->nuc->awr;
  double mu_cm = 2.0 * rng_uniform(&p->rng) - 1.0;
  double e_out = p->E * (A * A + 2.0 * A * mu_cm + 1.0) / ((A + 1.0) * (A + 1.0));
  if (e_out < 4.0 * KT_WATER && c->nuc->awr < 2.0)
    e_out = -KT_WATER * log(rng_uniform(&p->rng) * rng_uniform(&p->rng));
  if (e_out < E_CUTOFF)
    e_out = E_CUTOFF;
  p->E = e_out;
  isotropic_direction(&p->rng, &p->u, &p->v, &p->w);
  c->counters->scatters++;
}

static void absorb_capture(Particle *p, Collision *c) {
  p->alive = 0;
  c->counters->captures++;
}

/* The fission neutrons of this collision go to the fission bank: on
 * average wgt * nu / keff of them, so the population stays steady. */
static void absorb_fission(Particle *p, Collision *c) {
  FissionBank *fb = c->fbank;
  double expected = p->wgt * c->micro.nu / c->keff;
  int n = (int)expected;
  if (rng_uniform(&p->rng) < expected - n)
    n++;
  for (int i = 0; i < n; i++) {
    if (fb->n == fb->cap) {
      fb->overflow++;
      break;
    }
    FissionSite *s = &fb->site[fb->n++];
    s->x = p->x;
    s->y = p->y;
    s->z = p->z;
    s->E = sample_watt(&p->rng);
  }
  p->alive = 0;
  c->counters->fissions++;
}

const ReactionFn reaction_table[N_REACTIONS] = {scatter_elastic,
                                                absorb_capture,
                                                absorb_fission};

void collide(Particle *p, FissionBank *fbank, Tally *tally,
             EventCounters *counters, double keff) {
  const Material *mat = &g_xs.materials[p->xs_material];
  Collision c;
  c.fbank = fbank;
  c.tally = tally;
  c.counters = counters;
  c.keff = keff;

  /* the nuclide: by its share of the macroscopic total */
  double target = rng_uniform(&p->rng) * p->xs.total;
  double cum = 0.0;
  int k = 0;
  for (;; k++) {
    xs_micro(mat->nuclide[k], p->E, &c.micro);
    cum += mat->density[k] * c.micro.total;
    if (cum >= target || k == mat->n_nuclides - 1)
      break;
  }
  c.nuc = &g_xs.nuclides[mat->nuclide[k]];

  /* the reaction: by its share of the nuclide's total */
  double xi = rng_uniform(&p->rng) * c.micro.total;
  int rx;
  if (xi < c.micro.elastic)
    rx = RX_ELASTIC;
  else if (xi < c.micro.elastic + c.micro.fission)
    rx = RX_FISSION;
  else
    rx = RX_CAPTURE;
  if (rx != RX_ELASTIC && p->xs.absorption > 0.0)
    tally->k_absorption += p->wgt * p->xs.nu_fission / p->xs.absorption;

  reaction_table[rx](p, &c);
  p->n_collisions++;
  counters->collisions++;
}
