/* migrate.c - hands the particles that left the slab to the neighbours.
 *
 * Leavers are moved out of the species array (the last particle fills the
 * hole) into two send buffers. Each neighbour is first sent the count, then
 * the particles, with blocking MPI_Send/MPI_Recv; even ranks send first and
 * odd ranks receive first, so that large messages cannot deadlock.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pic.h"

enum { TAG_COUNT_DOWN = 201, TAG_COUNT_UP, TAG_PART_DOWN, TAG_PART_UP };

static Particle *out_lo, *out_hi;
static int out_cap;

static void reserve_out(int n) {
  if (n <= out_cap)
    return;
  out_cap = n + n / 2 + 64;
  out_lo = realloc(out_lo, (size_t)out_cap * sizeof(Particle));
  out_hi = realloc(out_hi, (size_t)out_cap * sizeof(Particle));
  if (!out_lo || !out_hi) {
    fprintf(stderr, "picgrid: out of memory for migration buffers\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static void send_to(const Params *prm, int dest, const Particle *buf, int count, int tag_count,
                    int tag_part) {
  MPI_Send(&count, 1, MPI_INT, dest, tag_count, prm->comm);
  if (count > 0)
    MPI_Send(buf, 4 * count, MPI_DOUBLE, dest, tag_part, prm->comm);
}

static int recv_from(const Params *prm, Species *s, int src, int tag_count, int tag_part) {
  int count;
  MPI_Recv(&count, 1, MPI_INT, src, tag_count, prm->comm, MPI_STATUS_IGNORE);
  if (count > 0) {
    species_reserve(s, s->n + count + count / 2);
    MPI_Recv(&s->p[s->n], 4 * count, MPI_DOUBLE, src, tag_part, prm->comm, MPI_STATUS_IGNORE);
    s->n += count;
  }
  return count;
}

/* Returns the number of particles this rank received. */
int migrate_particles(const Params *prm, Species *s) {
  const double ly = prm->ny_global;
  const double ylo = prm->y0, yhi = prm->y0 + prm->ny;
  int nlo = 0, nhi = 0, k = 0, received = 0;

  reserve_out(s->n / 8 + 16);
  while (k < s->n) {
    Particle *pp = &s->p[k];
    if (pp->y < 0.0)
      pp->y += ly;
    else if (pp->y >= ly)
      pp->y -= ly;
    if (pp->y >= ylo && pp->y < yhi) {
      k++;
      continue;
    }
    if (nlo + nhi + 1 >= out_cap)
      reserve_out(2 * out_cap);
    /* the periodic wrap above makes "below" and "above" relative to the slab */
    if ((pp->y < ylo && ylo - pp->y < 0.5 * ly) || (pp->y >= yhi && pp->y - yhi >= 0.5 * ly))
      out_lo[nlo++] = *pp;
    else
      out_hi[nhi++] = *pp;
    s->p[k] = s->p[s->n - 1];
    s->n--;
  }

  if (prm->nprocs == 1) {
    /* the wrap already put every particle back into the only slab */
    for (k = 0; k < nlo; k++)
      s->p[s->n++] = out_lo[k];
    for (k = 0; k < nhi; k++)
      s->p[s->n++] = out_hi[k];
    return nlo + nhi;
  }
  if (prm->rank % 2 == 0) {
    send_to(prm, prm->lo, out_lo, nlo, TAG_COUNT_DOWN, TAG_PART_DOWN);
    send_to(prm, prm->hi, out_hi, nhi, TAG_COUNT_UP, TAG_PART_UP);
    received += recv_from(prm, s, prm->hi, TAG_COUNT_DOWN, TAG_PART_DOWN);
    received += recv_from(prm, s, prm->lo, TAG_COUNT_UP, TAG_PART_UP);
  } else {
    received += recv_from(prm, s, prm->hi, TAG_COUNT_DOWN, TAG_PART_DOWN);
    received += recv_from(prm, s, prm->lo, TAG_COUNT_UP, TAG_PART_UP);
    send_to(prm, prm->lo, out_lo, nlo, TAG_COUNT_DOWN, TAG_PART_DOWN);
    send_to(prm, prm->hi, out_hi, nhi, TAG_COUNT_UP, TAG_PART_UP);
  }
  return received;
}
