/* stats.c: timers, the residual history, the rank mass and the top-k
 * vertices (a partial selection on every rank, merged on rank 0). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pagerank.h"

Stats *stats_create(int max_iter) {
  Stats *st = calloc(1, sizeof *st);
  if (!st)
    return NULL;
  st->resid_hist = calloc((size_t)max_iter, sizeof(double));
  st->dangling_hist = calloc((size_t)max_iter, sizeof(double));
  return st;
}

void stats_free(Stats *st) {
  if (!st)
    return;
  free(st->resid_hist);
  free(st->dangling_hist);
  free(st);
}

void stats_record(Stats *st, int iter, double resid, double dangling) {
  st->resid_hist[iter] = resid;
  st->dangling_hist[iter] = dangling;
  st->hist_len = iter + 1;
  st->niter = iter + 1;
}

/* Keep the k largest (value, id) pairs in descending order; ties go to the
 * smaller id. */
static int select_insert(double *val, int *id, int n, int k, double v,
                         int vid) {
  if (n == k && (v < val[k - 1] || (v == val[k - 1] && vid > id[k - 1])))
    return n;
  int pos = n < k ? n : k - 1;
  while (pos > 0 && (val[pos - 1] < v || (val[pos - 1] == v && id[pos - 1] > vid))) {
    if (pos < k) {
      val[pos] = val[pos - 1];
      id[pos] = id[pos - 1];
    }
    pos--;
  }
  val[pos] = v;
  id[pos] = vid;
  return n < k ? n + 1 : n;
}

void stats_topk(Stats *st, const double *rank, const Partition *part,
                MPI_Comm comm) {
  const int k = g_cfg.topk < part->nglobal ? g_cfg.topk : part->nglobal;
  double local_val[TOPK_MAX];
  int local_id[TOPK_MAX];
  int n = 0;
  for (int v = 0; v < part->nlocal; v++)
    n = select_insert(local_val, local_id, n, k, rank[v], part->first + v);
  for (int i = n; i < k; i++) {
    local_val[i] = -1.0;
    local_id[i] = -1;
  }
  double *all_val = NULL;
  int *all_id = NULL;
  if (part->rank == 0) {
    all_val = malloc((size_t)k * (size_t)part->nranks * sizeof(double));
    all_id = malloc((size_t)k * (size_t)part->nranks * sizeof(int));
  }
  MPI_Gather(local_val, k, MPI_DOUBLE, all_val, k, MPI_DOUBLE, 0, comm);
  MPI_Gather(local_id, k, MPI_INT, all_id, k, MPI_INT, 0, comm);
  st->ntop = 0;
  if (part->rank == 0) {
    for (int i = 0; i < k * part->nranks; i++)
      if (all_id[i] >= 0)
        st->ntop = select_insert(st->top_val, st->top_id, st->ntop, k,
                                 all_val[i], all_id[i]);
    free(all_val);
    free(all_id);
  }
}

void stats_mass(Stats *st, const double *rank, int nlocal, MPI_Comm comm) {
  double sum = 0.0, mx = 0.0;
  for (int v = 0; v < nlocal; v++) {
    sum += rank[v];
    if (rank[v] > mx)
      mx = rank[v];
  }
  MPI_Allreduce(&sum, &st->rank_sum, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&mx, &st->rank_max, 1, MPI_DOUBLE, MPI_MAX, comm);
}

void stats_print(const Stats *st, int rank) {
  if (rank != 0)
    return;
  for (int i = 0; i < st->hist_len; i++)
    if (i == 0 || (i + 1) % g_cfg.print_every == 0 || i + 1 == st->hist_len)
      printf("iter %3d  resid %.6e  dangling %.6f\n", i + 1,
             st->resid_hist[i], st->dangling_hist[i]);
  printf("rank sum %.9f  max %.6e\n", st->rank_sum, st->rank_max);
  printf("top %d vertices:\n", st->ntop);
  for (int i = 0; i < st->ntop; i++)
    printf("  %2d  vertex %8d  rank %.9e\n", i + 1, st->top_id[i],
           st->top_val[i]);
}

void stats_timers(const Stats *st, int rank, MPI_Comm comm) {
  double t[5] = {st->t_setup, st->t_pack, st->t_exchange, st->t_update,
                 st->t_total};
  double tmax[5];
  MPI_Reduce(t, tmax, 5, MPI_DOUBLE, MPI_MAX, 0, comm);
  if (rank == 0)
    fprintf(stderr,
            "timers (max over ranks): setup %.3f s, pack %.3f s, exchange "
            "%.3f s, update %.3f s, total %.3f s\n",
            tmax[0], tmax[1], tmax[2], tmax[3], tmax[4]);
}
