/* receivers.c -- the stations and their seismograms (vertical velocity). */
#include <mpi.h>
#include <stdlib.h>

#include "seis3d.h"

#define NOT_LOCAL ((size_t)-1)

static void place(const Grid *g, Receivers *rec, int r, int gi, int gj,
                  int gk)
{
  rec->gi[r] = gi;
  rec->gj[r] = gj;
  rec->gk[r] = gk;
  rec->cell[r] = grid_owns_plane(g, gk)
                     ? IX(g, gi + NGHOST, gj + NGHOST, gk - g->z0 + NGHOST)
                     : NOT_LOCAL;
}

void receivers_init(const Grid *g, Receivers *rec, int nline, int nwell,
                    int margin, int nt)
{
  rec->nrec = nline + nwell;
  rec->nt = nt;
  rec->gi = malloc((size_t)rec->nrec * sizeof *rec->gi);
  rec->gj = malloc((size_t)rec->nrec * sizeof *rec->gj);
  rec->gk = malloc((size_t)rec->nrec * sizeof *rec->gk);
  rec->cell = malloc((size_t)rec->nrec * sizeof *rec->cell);
  rec->traces = calloc((size_t)rec->nrec * (size_t)nt, sizeof *rec->traces);

  /* the shallow line runs along x over the source, a station every 4
   * cells, clipped to the inside of the sponge (margin cells wide) */
  const int depth = margin + 2, jline = g->nyi / 2 + 5;
  for (int r = 0; r < nline; r++) {
    int gi = g->nxi / 2 + 4 * (r - nline / 2);
    gi = gi < margin ? margin : gi;
    gi = gi > g->nxi - margin - 1 ? g->nxi - margin - 1 : gi;
    place(g, rec, r, gi, jline, depth);
  }
  /* the borehole, offset from the source, spans the depth of the model
   * inside the sponge: its stations lie on both sides of the rank
   * boundary */
  const int iwell = g->nxi / 2 + g->nxi / 10, jwell = g->nyi / 2;
  const int top = margin + 2, bottom = g->nz_global - margin - 3;
  for (int r = 0; r < nwell; r++) {
    int gk = top + r * (bottom - top) / (nwell > 1 ? nwell - 1 : 1);
    place(g, rec, nline + r, iwell, jwell, gk);
  }
}

void receivers_record(const Receivers *rec, const Wavefield *wf, int it)
{
  for (int r = 0; r < rec->nrec; r++)
    if (rec->cell[r] != NOT_LOCAL)
      rec->traces[(size_t)r * (size_t)rec->nt + (size_t)it] =
          wf->vz[rec->cell[r]];
}

/* The seismograms of all stations on root (NULL elsewhere): each station
 * is recorded by exactly one rank, the others hold zeros. */
float *receivers_gather(const Receivers *rec, int root)
{
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = rec->nrec * rec->nt;
  float *all = rank == root ? malloc((size_t)n * sizeof *all) : NULL;
  MPI_Reduce(rec->traces, all, n, MPI_FLOAT, MPI_SUM, root, MPI_COMM_WORLD);
  return all;
}

void receivers_free(Receivers *rec)
{
  free(rec->gi), free(rec->gj), free(rec->gk);
  free(rec->cell), free(rec->traces);
}
