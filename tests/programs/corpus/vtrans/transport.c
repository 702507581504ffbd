/* transport.c: one particle history, surface tracking through the mesh. */
#include <math.h>

#include "physics.h"

#define NUDGE 1.0e-9
#define MAX_EVENTS 100000

void transport_history(Particle *p, const Mesh *mesh, Tally *tally,
                       FissionBank *fbank, EventCounters *counters,
                       double keff) {
  counters->histories++;
  for (int event = 0; p->alive && event < MAX_EVENTS; event++) {
    int mat = mesh->material[p->cell];
    /* the cross sections change with the energy and the material only */
    if (p->E != p->xs_energy || mat != p->xs_material) {
      xs_macro(mat, p->E, &p->xs);
      p->xs_energy = p->E;
      p->xs_material = mat;
      counters->lookups++;
    }

    double d_collision = -log(rng_uniform(&p->rng)) / p->xs.total;
    double d_boundary = distance_to_boundary(mesh, p);
    double d = d_collision < d_boundary ? d_collision : d_boundary;

    score_track(tally, p, d);
    p->x += d * p->u;
    p->y += d * p->v;
    p->z += d * p->w;

    if (d_collision < d_boundary) {
      score_collision(tally, p);
      collide(p, fbank, tally, counters, keff);
    } else {
      /* cross into the next cell, or leak out of the box */
      p->x += NUDGE * p->u;
      p->y += NUDGE * p->v;
      p->z += NUDGE * p->w;
      int next = mesh_cell(mesh, p->x, p->y, p->z);
      counters->crossings++;
      if (next < 0) {
        p->alive = 0;
        counters->leaks++;
      } else {
        p->cell = next;
      }
    }
  }
}
