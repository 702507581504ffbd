/* pagerank.h: the power iteration and its statistics. */
#ifndef PRGRAPH_PAGERANK_H
#define PRGRAPH_PAGERANK_H

#include "exchange.h"
#include "graph.h"

#define TOPK_MAX 64

typedef struct {
  double t_setup, t_pack, t_exchange, t_update, t_total;
  int niter;
  int hist_len;
  double *resid_hist;    /* L1 residual of every iteration */
  double *dangling_hist; /* dangling mass of every iteration */
  double rank_sum, rank_max;
  int ntop;
  int top_id[TOPK_MAX];
  double top_val[TOPK_MAX];
} Stats;

Stats *stats_create(int max_iter);
void stats_free(Stats *st);
void stats_record(Stats *st, int iter, double resid, double dangling);
void stats_topk(Stats *st, const double *rank, const Partition *part,
                MPI_Comm comm);
void stats_mass(Stats *st, const double *rank, int nlocal, MPI_Comm comm);
void stats_print(const Stats *st, int rank);
void stats_timers(const Stats *st, int rank, MPI_Comm comm);

void pagerank_init(double *rank, int nlocal, int nglobal);
int pagerank_run(const Graph *g, Exchange *ex, double **rank_io,
                 double **next_io, double *contrib, double *incoming,
                 Stats *st);

#endif
