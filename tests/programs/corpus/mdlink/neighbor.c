/* mdlink: link cells and the half neighbour list built from them.
 * The cells are at least one neighbour cut-off wide, so the 27 cells around
 * an atom's cell hold every atom it can interact with; one layer of cells
 * around the sub-box holds the ghosts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "md.h"

void cells_setup(CellList *cl, const Atoms *atoms, double cutneigh) {
  for (int d = 0; d < 3; d++) {
    double len = atoms->hi[d] - atoms->lo[d];
    int inner = (int)floor(len / cutneigh);
    if (inner < 1)
      inner = 1;
    cl->cellsize[d] = len / inner;
    cl->nc[d] = inner + 2;
    cl->origin[d] = atoms->lo[d] - cl->cellsize[d];
  }
  cl->ncells = cl->nc[0] * cl->nc[1] * cl->nc[2];
  cl->head = malloc(sizeof(int) * (size_t)cl->ncells);
  cl->maxatoms = 0;
  cl->next = NULL;
  cl->nstencil = 0;
  for (int dz = -1; dz <= 1; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++)
        cl->stencil[cl->nstencil++] = (dz * cl->nc[1] + dy) * cl->nc[0] + dx;
}

static inline int cell_of(const CellList *cl, const double *xi) {
  int c[3];
  for (int d = 0; d < 3; d++) {
    c[d] = (int)((xi[d] - cl->origin[d]) / cl->cellsize[d]);
    if (c[d] < 0)
      c[d] = 0;
    if (c[d] >= cl->nc[d])
      c[d] = cl->nc[d] - 1;
  }
  return (c[2] * cl->nc[1] + c[1]) * cl->nc[0] + c[0];
}

/* Thread every atom, local and ghost, onto the chain of its cell. Walking the
 * atoms backwards leaves each chain in increasing order. */
void cells_bin(CellList *cl, const Atoms *atoms) {
  int nall = atoms->nlocal + atoms->nghost;
  if (nall > cl->maxatoms) {
    cl->maxatoms = nall + nall / 4;
    cl->next = realloc(cl->next, sizeof(int) * (size_t)cl->maxatoms);
  }
  for (int c = 0; c < cl->ncells; c++)
    cl->head[c] = -1;
  for (int i = nall - 1; i >= 0; i--) {
    int c = cell_of(cl, &atoms->x[3 * i]);
    cl->next[i] = cl->head[c];
    cl->head[c] = i;
  }
}

void neighbor_init(NeighList *nl, double cutneigh) {
  nl->cutneigh = cutneigh;
  nl->cutneighsq = cutneigh * cutneigh;
  nl->maxlocal = 0;
  nl->maxneighs = 48;
  nl->numneigh = NULL;
  nl->neighbors = NULL;
}

static void neighbor_alloc(NeighList *nl, int nlocal) {
  free(nl->numneigh);
  free(nl->neighbors);
  nl->maxlocal = nlocal + nlocal / 8 + 16;
  nl->numneigh = malloc(sizeof(int) * (size_t)nl->maxlocal);
  nl->neighbors = malloc(sizeof(int) * (size_t)nl->maxlocal * nl->maxneighs);
  if (!nl->numneigh || !nl->neighbors) {
    fprintf(stderr, "mdlink: out of memory for the neighbour list\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/* Pairs of local atoms are stored once (j > i); a local atom stores all of
 * its ghost neighbours (Newton's third law is not applied across ranks). */
void neighbor_build(NeighList *nl, const CellList *cl, const Atoms *atoms) {
  const int nlocal = atoms->nlocal;
  const double *x = atoms->x;
  if (nlocal > nl->maxlocal)
    neighbor_alloc(nl, nlocal);
  for (;;) {
    int overflow = 0;
    for (int i = 0; i < nlocal; i++) {
      const double xi = x[3 * i], yi = x[3 * i + 1], zi = x[3 * i + 2];
      int *list = &nl->neighbors[(size_t)i * nl->maxneighs];
      int n = 0;
      int c = cell_of(cl, &x[3 * i]);
      for (int k = 0; k < cl->nstencil; k++) {
        for (int j = cl->head[c + cl->stencil[k]]; j >= 0; j = cl->next[j]) {
          if (j < nlocal && j <= i)
            continue;
          double dx = xi - x[3 * j], dy = yi - x[3 * j + 1], dz = zi - x[3 * j + 2];
          double rsq = dx * dx + dy * dy + dz * dz;
          if (rsq < nl->cutneighsq) {
            if (n < nl->maxneighs)
              list[n] = j;
            n++;
          }
        }
      }
      nl->numneigh[i] = n;
      if (n > nl->maxneighs && n > overflow)
        overflow = n;
    }
    if (!overflow)
      break;
    nl->maxneighs = overflow + overflow / 4;
    neighbor_alloc(nl, nlocal);
  }
}
