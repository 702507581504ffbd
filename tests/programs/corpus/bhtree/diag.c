/* diag.c: diagnostics (energies, momentum, the clusters' separation, the
 * tree's force error against a direct sum), the run counters and the
 * timers' report. */
#include <math.h>
#include <stdio.h>
#include "tree.h"

void energy(const Body *bodies, int nlocal, MPI_Comm comm, double *ekin,
            double *epot) {
  double local[2] = {0.0, 0.0}, global[2];
  for (int i = 0; i < nlocal; i++) {
    const Body *b = &bodies[i];
    double v2 = b->vel[0] * b->vel[0] + b->vel[1] * b->vel[1] +
                b->vel[2] * b->vel[2];
    local[0] += 0.5 * b->mass * v2;
    local[1] += 0.5 * b->mass * b->pot; /* each pair counted twice */
  }
  MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_SUM, comm);
  *ekin = global[0];
  *epot = global[1];
}

void momentum(const Body *bodies, int nlocal, MPI_Comm comm, double p[3]) {
  double local[3] = {0.0, 0.0, 0.0};
  for (int i = 0; i < nlocal; i++)
    for (int d = 0; d < 3; d++)
      local[d] += bodies[i].mass * bodies[i].vel[d];
  MPI_Allreduce(local, p, 3, MPI_DOUBLE, MPI_SUM, comm);
}

/* distance between the centers of mass of bodies [0, n/2) and [n/2, n) */
double cluster_separation(const Body *bodies, int nlocal, int first, int n,
                          MPI_Comm comm) {
  double local[8] = {0.0}, global[8];
  for (int i = 0; i < nlocal; i++) {
    int c = first + i < n / 2 ? 0 : 4;
    for (int d = 0; d < 3; d++)
      local[c + d] += bodies[i].mass * bodies[i].pos[d];
    local[c + 3] += bodies[i].mass;
  }
  MPI_Allreduce(local, global, 8, MPI_DOUBLE, MPI_SUM, comm);
  double s2 = 0.0;
  for (int d = 0; d < 3; d++) {
    double dd = global[d] / global[3] - global[4 + d] / global[7];
    s2 += dd * dd;
  }
  return sqrt(s2);
}

/* relative error |a_tree - a_direct| / |a_direct| on nsample bodies spread
 * over the global index range; each is checked by the rank owning it */
void force_error_sample(const Body *bodies, int nlocal, int first,
                        const double *gpos, int n, int nsample, MPI_Comm comm,
                        double *err_mean, double *err_max) {
  double sum = 0.0, worst = 0.0;
  for (int s = 0; s < nsample; s++) {
    int i = (int)((long)s * n / nsample);
    if (i < first || i >= first + nlocal)
      continue;
    double a[3], num = 0.0, den = 0.0;
    direct_force(gpos, n, i, a);
    for (int d = 0; d < 3; d++) {
      double e = bodies[i - first].acc[d] - a[d];
      num += e * e;
      den += a[d] * a[d];
    }
    double rel = sqrt(num / den);
    sum += rel;
    if (rel > worst)
      worst = rel;
  }
  MPI_Allreduce(&sum, err_mean, 1, MPI_DOUBLE, MPI_SUM, comm);
  MPI_Allreduce(&worst, err_max, 1, MPI_DOUBLE, MPI_MAX, comm);
  *err_mean /= nsample;
}

void stats_update(RunStats *s, const NodePool *pool, long interactions) {
  s->nodes_last = pool->next_free;
  if (s->nodes_last > s->nodes_max)
    s->nodes_max = s->nodes_last;
  if (pool->max_depth > s->depth_max)
    s->depth_max = pool->max_depth;
  s->interactions_last = interactions;
  s->interactions_total += interactions;
  s->nforce++;
}

void report_timers(double t_build, double t_walk, double t_comm,
                   double t_total, int rank, MPI_Comm comm) {
  double t[4] = {t_build, t_walk, t_comm, t_total}, tmax[4];
  MPI_Reduce(t, tmax, 4, MPI_DOUBLE, MPI_MAX, 0, comm);
  if (rank == 0)
    fprintf(stderr,
            "timers (max over ranks): build %.3f s, walk %.3f s, comm %.3f s,"
            " total %.3f s\n",
            tmax[0], tmax[1], tmax[2], tmax[3]);
}
