/* exchange.h: the all-to-all exchange of per-vertex contributions. Every
 * local edge adds its source's contribution into one slot of sendbuf; a
 * slot stands for one (owner rank, target vertex) pair, so the sums are
 * combined before they are sent. */
#ifndef PRGRAPH_EXCHANGE_H
#define PRGRAPH_EXCHANGE_H

#include <mpi.h>
#include "graph.h"

typedef struct {
  MPI_Comm comm;
  int nranks;
  int nsend, nrecv;  /* slots sent and received per exchange */
  double *sendbuf;   /* nsend partial sums, grouped by destination rank */
  double *recvbuf;   /* nrecv partial sums, grouped by source rank */
  int *sendcounts, *sdispls;
  int *recvcounts, *rdispls;
  int *dest_index;   /* for each local edge, its slot in sendbuf */
  int *recv_local;   /* for each received slot, the local target vertex */
  long nexchange;    /* exchanges done */
} Exchange;

Exchange *exchange_create(const Graph *g, const Partition *part, MPI_Comm comm);
void exchange_free(Exchange *ex);
void exchange_pack(Exchange *ex, const Graph *g, const double *contrib);
void exchange_run(Exchange *ex);
void exchange_unpack(const Exchange *ex, double *incoming, int nlocal);

#endif
