/* partition.c: 1D block row partition of the vertices over the ranks. */
#include <stdlib.h>
#include "graph.h"

Partition *partition_create(int nglobal, int rank, int nranks) {
  Partition *p = malloc(sizeof *p);
  if (!p)
    return NULL;
  p->rank = rank;
  p->nranks = nranks;
  p->nglobal = nglobal;
  p->base = nglobal / nranks;
  p->rem = nglobal % nranks;
  p->first = partition_first(p, rank);
  p->nlocal = partition_first(p, rank + 1) - p->first;
  return p;
}

void partition_free(Partition *p) { free(p); }

/* First vertex of rank r (r == nranks gives nglobal). */
int partition_first(const Partition *p, int r) {
  if (r <= p->rem)
    return r * (p->base + 1);
  return p->rem * (p->base + 1) + (r - p->rem) * p->base;
}

int partition_owner(const Partition *p, int v) {
  int split = p->rem * (p->base + 1);
  if (v < split)
    return v / (p->base + 1);
  return p->rem + (v - split) / p->base;
}
