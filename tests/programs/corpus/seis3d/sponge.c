/* sponge.c -- absorbing boundary (Cerjan et al. 1985): every field is
 * multiplied each step by exp(-(a (w - d))^2) in the w outer cells of the
 * model, d cells from its face. The model is buried: all six faces absorb.
 * The factor of a cell is the product of three 1D profiles, precomputed. */
#include <math.h>
#include <stdlib.h>

#include "seis3d.h"

static float *profile(int n_alloc, int offset, int n_global, int width,
                      float strength)
{
  float *p = malloc((size_t)n_alloc * sizeof *p);
  for (int i = 0; i < n_alloc; i++) {
    int ig = offset + i - NGHOST; /* global interior index */
    ig = ig < 0 ? 0 : (ig > n_global - 1 ? n_global - 1 : ig);
    int d = ig < n_global - 1 - ig ? ig : n_global - 1 - ig;
    float a = strength * (float)(width - d);
    p[i] = d < width ? expf(-a * a) : 1.0f;
  }
  return p;
}

void sponge_build(const Grid *g, Sponge *sp, int width, float strength)
{
  sp->width = width;
  sp->px = profile(g->nx, 0, g->nxi, width, strength);
  sp->py = profile(g->ny, 0, g->nyi, width, strength);
  sp->pz = profile(g->nz, g->z0, g->nz_global, width, strength);
}

void sponge_free(Sponge *sp)
{
  free(sp->px), free(sp->py), free(sp->pz);
  sp->px = sp->py = sp->pz = NULL;
}

void sponge_apply(const Grid *g, Wavefield *wf, const Sponge *sp)
{
  float *restrict vx = wf->vx;
  float *restrict vy = wf->vy;
  float *restrict vz = wf->vz;
  float *restrict sxx = wf->sxx;
  float *restrict syy = wf->syy;
  float *restrict szz = wf->szz;
  float *restrict sxy = wf->sxy;
  float *restrict sxz = wf->sxz;
  float *restrict syz = wf->syz;
  const float *restrict px = sp->px;
  const float *restrict py = sp->py;
  const float *restrict pz = sp->pz;

  const int ilo = NGHOST, ihi = g->nx - NGHOST, w = sp->width;

  for (int k = NGHOST; k < g->nz - NGHOST; k++) {
    for (int j = NGHOST; j < g->ny - NGHOST; j++) {
      const float fzy = pz[k] * py[j];
      const size_t row = IX(g, 0, j, k);
      /* rows inside the sponge in y or z are damped end to end, the others
       * only in their x sponge at both ends */
      int span[2][2] = {{ilo, ihi}, {ihi, ihi}};
      if (fzy >= 1.0f) {
        span[0][1] = ilo + w;
        span[1][0] = ihi - w;
      }
      for (int s = 0; s < 2; s++) {
        for (int i = span[s][0]; i < span[s][1]; i++) {
          const size_t c = row + (size_t)i;
          const float f = fzy * px[i];
          vx[c] *= f;
          vy[c] *= f;
          vz[c] *= f;
          sxx[c] *= f;
          syy[c] *= f;
          szz[c] *= f;
          sxy[c] *= f;
          sxz[c] *= f;
          syz[c] *= f;
        }
      }
    }
  }
}
