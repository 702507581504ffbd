/* graph.h: run configuration, the distributed CSR graph and its 1D row
 * partition. */
#ifndef PRGRAPH_GRAPH_H
#define PRGRAPH_GRAPH_H

#include <mpi.h>

/* Run configuration: defined in config.c, read through extern everywhere. */
typedef struct {
  int scale;          /* 2^scale vertices */
  int edge_factor;    /* generated edges per vertex */
  int sink_percent;   /* vertices whose out-edges are dropped (dangling) */
  int local_percent;  /* edges to a nearby id (within window) */
  int window;         /* the largest id offset of a nearby edge */
  int max_iter;       /* power iterations at most */
  int topk;           /* vertices listed at the end */
  int print_every;    /* residual history printed every this many iterations */
  double damping;     /* d */
  double tol;         /* L1 residual to stop at */
  unsigned long long seed;
} Config;

extern Config g_cfg;

void config_parse(int argc, char **argv);

/* 1D block partition of the vertex ids over the ranks. */
typedef struct {
  int rank, nranks;
  int nglobal;
  int first;   /* first vertex of this rank */
  int nlocal;  /* vertices of this rank */
  int base, rem; /* the first rem ranks own base + 1 vertices, the others base */
} Partition;

Partition *partition_create(int nglobal, int rank, int nranks);
void partition_free(Partition *p);
int partition_owner(const Partition *p, int v);
int partition_first(const Partition *p, int r);

/* The local rows of the graph: out-edges of the vertices this rank owns,
 * targets as global ids. */
typedef struct {
  int nglobal;
  int nlocal;
  int first;
  long nedges;    /* local edges */
  long *row_ptr;  /* nlocal + 1 */
  int *col_idx;   /* nedges global target ids */
  int *outdeg;    /* nlocal */
} Graph;

Graph *graph_create(const Partition *part);
void graph_free(Graph *g);
void graph_summary(const Graph *g, MPI_Comm comm, long *nedges_all,
                   int *ndangling_all, int *maxdeg_all);

#endif
