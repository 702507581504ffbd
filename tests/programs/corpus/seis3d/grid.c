/* grid.c -- z-slab decomposition and the allocation of the fields. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

void grid_init(Grid *g, int nx, int ny, int nz_global, float h, int rank,
               int nranks)
{
  memset(g, 0, sizeof *g);
  g->rank = rank;
  g->nranks = nranks;
  g->nz_global = nz_global;

  /* Planes are dealt out as evenly as possible, the remainder to the
   * shallowest ranks. */
  int base = nz_global / nranks, extra = nz_global % nranks;
  g->nzi = base + (rank < extra ? 1 : 0);
  g->z0 = rank * base + (rank < extra ? rank : extra);

  g->nxi = nx;
  g->nyi = ny;
  g->nx = nx + 2 * NGHOST;
  g->ny = ny + 2 * NGHOST;
  g->nz = g->nzi + 2 * NGHOST;
  g->ncell = (size_t)g->nx * (size_t)g->ny * (size_t)g->nz;
  g->dx = g->dy = g->dz = h;
  g->up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  g->down = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;

  if (g->nzi < NGHOST) {
    fprintf(stderr, "rank %d: %d planes, fewer than the %d ghost planes\n",
            rank, g->nzi, NGHOST);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/* Whether global interior plane kglobal lies on this rank. */
int grid_owns_plane(const Grid *g, int kglobal)
{
  return kglobal >= g->z0 && kglobal < g->z0 + g->nzi;
}

float *field_alloc(const Grid *g)
{
  float *f = calloc(g->ncell, sizeof *f);
  if (!f) {
    fprintf(stderr, "rank %d: out of memory (%zu cells)\n", g->rank,
            g->ncell);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return f;
}

void wavefield_alloc(const Grid *g, Wavefield *wf)
{
  wf->vx = field_alloc(g);
  wf->vy = field_alloc(g);
  wf->vz = field_alloc(g);
  wf->sxx = field_alloc(g);
  wf->syy = field_alloc(g);
  wf->szz = field_alloc(g);
  wf->sxy = field_alloc(g);
  wf->sxz = field_alloc(g);
  wf->syz = field_alloc(g);
}

void wavefield_free(Wavefield *wf)
{
  free(wf->vx), free(wf->vy), free(wf->vz);
  free(wf->sxx), free(wf->syy), free(wf->szz);
  free(wf->sxy), free(wf->sxz), free(wf->syz);
  memset(wf, 0, sizeof *wf);
}

void model_alloc(const Grid *g, Model *m)
{
  m->rho_inv = field_alloc(g);
  m->lam = field_alloc(g);
  m->mu = field_alloc(g);
}

void model_free(Model *m)
{
  free(m->rho_inv), free(m->lam), free(m->mu);
  m->rho_inv = m->lam = m->mu = NULL;
}
