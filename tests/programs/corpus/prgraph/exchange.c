/* exchange.c: setup of the contribution exchange (slots, counts and
 * displacements, exchanged once with MPI_Alltoall and MPI_Alltoallv) and
 * the per-iteration pack, MPI_Alltoallv and unpack. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "exchange.h"

static void *xmalloc(size_t n) {
  void *p = malloc(n > 0 ? n : 1);
  if (!p) {
    fprintf(stderr, "prgraph: out of memory (%zu bytes)\n", n);
    exit(1);
  }
  return p;
}

Exchange *exchange_create(const Graph *g, const Partition *part, MPI_Comm comm) {
  Exchange *ex = xmalloc(sizeof *ex);
  const int P = part->nranks;
  ex->comm = comm;
  ex->nranks = P;
  ex->nexchange = 0;
  ex->sendcounts = xmalloc((size_t)P * sizeof(int));
  ex->sdispls = xmalloc((size_t)P * sizeof(int));
  ex->recvcounts = xmalloc((size_t)P * sizeof(int));
  ex->rdispls = xmalloc((size_t)P * sizeof(int));
  ex->dest_index = xmalloc((size_t)g->nedges * sizeof(int));
  memset(ex->sendcounts, 0, (size_t)P * sizeof(int));

  /* number the distinct targets of each destination in order of first use */
  int *slot_of = xmalloc((size_t)g->nglobal * sizeof(int));
  for (int v = 0; v < g->nglobal; v++)
    slot_of[v] = -1;
  for (long e = 0; e < g->nedges; e++) {
    int v = g->col_idx[e];
    if (slot_of[v] < 0)
      slot_of[v] = ex->sendcounts[partition_owner(part, v)]++;
  }
  ex->nsend = 0;
  for (int r = 0; r < P; r++) {
    ex->sdispls[r] = ex->nsend;
    ex->nsend += ex->sendcounts[r];
  }
  int *send_ids = xmalloc((size_t)ex->nsend * sizeof(int));
  for (long e = 0; e < g->nedges; e++) {
    int v = g->col_idx[e];
    int slot = ex->sdispls[partition_owner(part, v)] + slot_of[v];
    ex->dest_index[e] = slot;
    send_ids[slot] = v;
  }
  free(slot_of);

  /* the counts once, then the target ids of the slots */
  MPI_Alltoall(ex->sendcounts, 1, MPI_INT, ex->recvcounts, 1, MPI_INT, comm);
  ex->nrecv = 0;
  for (int r = 0; r < P; r++) {
    ex->rdispls[r] = ex->nrecv;
    ex->nrecv += ex->recvcounts[r];
  }
  ex->recv_local = xmalloc((size_t)ex->nrecv * sizeof(int));
  MPI_Alltoallv(send_ids, ex->sendcounts, ex->sdispls, MPI_INT, ex->recv_local,
                ex->recvcounts, ex->rdispls, MPI_INT, comm);
  for (int s = 0; s < ex->nrecv; s++)
    ex->recv_local[s] -= part->first;
  free(send_ids);

  ex->sendbuf = xmalloc((size_t)ex->nsend * sizeof(double));
  ex->recvbuf = xmalloc((size_t)ex->nrecv * sizeof(double));
  return ex;
}

void exchange_free(Exchange *ex) {
  if (!ex)
    return;
  free(ex->sendbuf);
  free(ex->recvbuf);
  free(ex->sendcounts);
  free(ex->sdispls);
  free(ex->recvcounts);
  free(ex->rdispls);
  free(ex->dest_index);
  free(ex->recv_local);
  free(ex);
}

/* Push every local vertex's contribution along its out-edges: the partial
 * sums of each (destination, target) slot. */
void exchange_pack(Exchange *ex, const Graph *g, const double *contrib) {
  double *sendbuf = ex->sendbuf;
  const int *slot = ex->dest_index;
  memset(sendbuf, 0, (size_t)ex->nsend * sizeof(double));
  for (int u = 0; u < g->nlocal; u++) {
    const double c = contrib[u];
    for (long e = g->row_ptr[u]; e < g->row_ptr[u + 1]; e++)
      sendbuf[slot[e]] += c;
  }
}

void exchange_run(Exchange *ex) {
  MPI_Alltoallv(ex->sendbuf, ex->sendcounts, ex->sdispls, MPI_DOUBLE,
                ex->recvbuf, ex->recvcounts, ex->rdispls, MPI_DOUBLE,
                ex->comm);
  ex->nexchange++;
}

/* Sum the received partial sums into the local targets. */
void exchange_unpack(const Exchange *ex, double *incoming, int nlocal) {
  memset(incoming, 0, (size_t)nlocal * sizeof(double));
  for (int s = 0; s < ex->nrecv; s++)
    incoming[ex->recv_local[s]] += ex->recvbuf[s];
}
