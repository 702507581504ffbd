/* source.c -- an explosion: a Ricker wavelet added to the three normal
 * stresses of one cell (moment-tensor source M = m0 I). */
#include <math.h>

#include "seis3d.h"

#define PI_F 3.14159265358979f

float ricker(float t, float f0, float t0)
{
  const float a = PI_F * f0 * (t - t0);
  const float a2 = a * a;
  return (1.0f - 2.0f * a2) * expf(-a2);
}

void source_init(const Grid *g, Source *src, int gi, int gj, int gk, float f0,
                 float m0)
{
  src->gi = gi;
  src->gj = gj;
  src->gk = gk;
  src->f0 = f0;
  src->t0 = 1.2f / f0;
  src->m0 = m0;
  src->local = grid_owns_plane(g, gk);
  src->cell = src->local ? IX(g, gi + NGHOST, gj + NGHOST,
                              gk - g->z0 + NGHOST)
                         : 0;
}

void source_inject(const Grid *g, Wavefield *wf, const Source *src, float t,
                   float dt)
{
  if (!src->local)
    return;
  /* the moment rate spread over the cell's volume */
  const float s = dt * src->m0 * ricker(t, src->f0, src->t0) /
                  (g->dx * g->dy * g->dz);
  wf->sxx[src->cell] += s;
  wf->syy[src->cell] += s;
  wf->szz[src->cell] += s;
}
