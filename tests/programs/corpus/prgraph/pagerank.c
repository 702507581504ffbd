/* pagerank.c: the power iteration. Each iteration computes the local
 * contributions rank[u] / outdeg[u], pushes them along the out-edges into
 * the exchange's send buffer, exchanges them (MPI_Alltoallv), sums the
 * received parts per local vertex and forms
 *   next[v] = (1 - d) / N + d * (incoming[v] + dangling / N),
 * with the dangling mass and the L1 residual summed by MPI_Allreduce; then
 * rank and next swap by pointer. */
#include <math.h>
#include "pagerank.h"

void pagerank_init(double *rank, int nlocal, int nglobal) {
  const double r0 = 1.0 / (double)nglobal;
  for (int v = 0; v < nlocal; v++)
    rank[v] = r0;
}

/* contrib[u] = rank[u] / outdeg[u]; returns the rank mass of the local
 * dangling vertices (no out-edges). */
static double compute_contrib(const Graph *g, const double *rank,
                              double *contrib) {
  double dangling = 0.0;
  for (int u = 0; u < g->nlocal; u++) {
    if (g->outdeg[u] > 0) {
      contrib[u] = rank[u] / (double)g->outdeg[u];
    } else {
      contrib[u] = 0.0;
      dangling += rank[u];
    }
  }
  return dangling;
}

/* next[v] from the incoming sums; returns the local L1 change. */
static double update_ranks(int nlocal, const double *incoming,
                           const double *rank, double *next, double base,
                           double d) {
  double diff = 0.0;
  for (int v = 0; v < nlocal; v++) {
    next[v] = base + d * incoming[v];
    diff += fabs(next[v] - rank[v]);
  }
  return diff;
}

int pagerank_run(const Graph *g, Exchange *ex, double **rank_io,
                 double **next_io, double *contrib, double *incoming,
                 Stats *st) {
  double *rank = *rank_io, *next = *next_io;
  const double d = g_cfg.damping;
  const double n = (double)g->nglobal;
  int iter = 0;
  while (iter < g_cfg.max_iter) {
    double t0 = MPI_Wtime();
    double dangling_local = compute_contrib(g, rank, contrib);
    exchange_pack(ex, g, contrib);
    double t1 = MPI_Wtime();
    exchange_run(ex);
    double dangling;
    MPI_Allreduce(&dangling_local, &dangling, 1, MPI_DOUBLE, MPI_SUM,
                  ex->comm);
    double t2 = MPI_Wtime();
    exchange_unpack(ex, incoming, g->nlocal);
    double base = (1.0 - d) / n + d * dangling / n;
    double diff_local = update_ranks(g->nlocal, incoming, rank, next, base, d);
    double resid;
    MPI_Allreduce(&diff_local, &resid, 1, MPI_DOUBLE, MPI_SUM, ex->comm);
    double t3 = MPI_Wtime();
    st->t_pack += t1 - t0;
    st->t_exchange += t2 - t1;
    st->t_update += t3 - t2;
    stats_record(st, iter, resid, dangling);
    iter++;
    double *tmp = rank;
    rank = next;
    next = tmp;
    if (resid < g_cfg.tol)
      break;
  }
  *rank_io = rank;
  *next_io = next;
  return iter;
}
