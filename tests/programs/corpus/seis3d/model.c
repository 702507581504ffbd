/* model.c -- the elastic model: three layers over a half-space, with
 * velocity gradients, the second interface bent into an anticline. Built
 * once over every cell of the local grid, ghost layers included, then only
 * read by the kernels. */
#include <math.h>
#include <mpi.h>

#include "grid.h"

typedef struct {
  float top;         /* depth of the layer's top (m) */
  float vp, vs, rho; /* at the top of the layer */
  float grad;        /* dvp/dz in the layer (1/s) */
} Layer;

static const Layer layers[] = {
    {0.0f, 1800.0f, 900.0f, 1900.0f, 0.6f},
    {300.0f, 2300.0f, 1250.0f, 2100.0f, 0.4f},
    {650.0f, 2800.0f, 1550.0f, 2300.0f, 0.3f},
    {1000.0f, 3300.0f, 1850.0f, 2450.0f, 0.0f},
};
#define NLAYER ((int)(sizeof layers / sizeof layers[0]))

static int clampi(int v, int lo, int hi)
{
  return v < lo ? lo : (v > hi ? hi : v);
}

/* The depth of interface l under (x, y): flat but for the anticline. */
static float interface_depth(int l, float x, float y, float xc, float yc)
{
  float d = layers[l].top;
  if (l == 2) {
    float r2 = ((x - xc) * (x - xc) + (y - yc) * (y - yc)) / (400.0f * 400.0f);
    d -= 180.0f * expf(-r2);
  }
  return d;
}

void model_build(const Grid *g, Model *m)
{
  const float xc = 0.5f * (float)g->nxi * g->dx;
  const float yc = 0.5f * (float)g->nyi * g->dy;
  float vp_max = 0.0f;

  for (int k = 0; k < g->nz; k++) {
    /* ghost cells take the values of the nearest interior cell */
    int kg = clampi(g->z0 + k - NGHOST, 0, g->nz_global - 1);
    float z = ((float)kg + 0.5f) * g->dz;
    for (int j = 0; j < g->ny; j++) {
      float y = ((float)clampi(j - NGHOST, 0, g->nyi - 1) + 0.5f) * g->dy;
      for (int i = 0; i < g->nx; i++) {
        float x = ((float)clampi(i - NGHOST, 0, g->nxi - 1) + 0.5f) * g->dx;

        int l = 0;
        while (l + 1 < NLAYER && z >= interface_depth(l + 1, x, y, xc, yc))
          l++;
        float dz = z - interface_depth(l, x, y, xc, yc);
        float vp = layers[l].vp + layers[l].grad * dz;
        float vs = layers[l].vs + 0.55f * layers[l].grad * dz;
        float rho = layers[l].rho + 0.12f * layers[l].grad * dz;

        size_t c = IX(g, i, j, k);
        m->rho_inv[c] = 1.0f / rho;
        m->mu[c] = rho * vs * vs;
        m->lam[c] = rho * (vp * vp - 2.0f * vs * vs);
        vp_max = vp > vp_max ? vp : vp_max;
      }
    }
  }
  MPI_Allreduce(&vp_max, &m->vp_max, 1, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
}
