/* source.c: the particles of a batch, from the initial guess (uniform in
 * the fuel, Watt spectrum) or from the previous batch's fission sites. */
#include <stdlib.h>

#include "vtrans.h"

void bank_init(ParticleBank *b, int cap) {
  b->p = calloc((size_t)cap, sizeof(Particle));
  b->n = 0;
  b->cap = cap;
}

void fission_bank_init(FissionBank *fb, int cap) {
  fb->site = malloc((size_t)cap * sizeof(FissionSite));
  fb->n = 0;
  fb->cap = cap;
  fb->overflow = 0;
}

static void place(Particle *p, double x, double y, double z, double E,
                  const Mesh *mesh) {
  p->x = x;
  p->y = y;
  p->z = z;
  p->E = E;
  p->cell = mesh_cell(mesh, x, y, z);
}

void source_initial(ParticleBank *b, const Mesh *mesh, int n, Rng *src_rng) {
  b->n = n;
  for (int i = 0; i < n; i++) {
    int cell = mesh->fuel_cells[(int)(rng_uniform(src_rng) * mesh->n_fuel)];
    double cx, cy, cz, h = 0.5 * mesh->pitch;
    mesh_cell_center(mesh, cell, &cx, &cy, &cz);
    place(&b->p[i], cx + h * (2.0 * rng_uniform(src_rng) - 1.0),
          cy + h * (2.0 * rng_uniform(src_rng) - 1.0),
          cz + h * (2.0 * rng_uniform(src_rng) - 1.0), sample_watt(src_rng),
          mesh);
  }
}

/* n sites drawn with replacement from the fission bank. */
void source_from_fission(ParticleBank *b, const FissionBank *fb,
                         const Mesh *mesh, int n, Rng *src_rng) {
  if (fb->n == 0) {
    source_initial(b, mesh, n, src_rng);
    return;
  }
  b->n = n;
  for (int i = 0; i < n; i++) {
    const FissionSite *s = &fb->site[(int)(rng_uniform(src_rng) * fb->n)];
    place(&b->p[i], s->x, s->y, s->z, s->E, mesh);
  }
}

/* Directions, weights and streams: history first_id + i has the stream
 * starting RNG_STRIDE * (first_id + i) draws into the sequence. */
void start_histories(ParticleBank *b, uint64_t first_id, uint64_t seed) {
  for (int i = 0; i < b->n; i++) {
    Particle *p = &b->p[i];
    rng_init(&p->rng, seed);
    rng_skip(&p->rng, RNG_STRIDE * (first_id + (uint64_t)i));
    isotropic_direction(&p->rng, &p->u, &p->v, &p->w);
    p->wgt = 1.0;
    p->alive = p->cell >= 0;
    p->n_collisions = 0;
    p->xs_material = -1;
    p->xs_energy = -1.0;
  }
}
