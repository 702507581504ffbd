/* bhtree: 3D Barnes-Hut gravity N-body code, bodies split in blocks over
 * the MPI ranks. Each rank owns `Body *bodies` (array of structs: pos, vel,
 * acc, mass, pot). Every step packs its positions and masses into `sendbuf`
 * and MPI_Allgatherv (gather_positions) gathers all of them into the global
 * copy `gpos` (x, y, z, m a body), from which every rank builds the whole
 * octree: tree_build resets main's `NodePool pool` (arena pool.nodes,
 * cursor pool.next_free; pool_alloc returns &p->nodes[p->next_free++]) and
 * inserts each body recursively (tree_insert, insert_below, new_node:
 * child[8] pointers, cell, count, leaf body); tree_moments computes mass
 * and center of mass upwards. compute_forces walks the tree once for each
 * of its own bodies (walk_force, recursive; opening test side/d < theta
 * and the body outside the cell; inside(), interact() inlined), adding the
 * softened accelerations and potentials into bodies[i].acc and .pot and
 * counting into main's `long interactions` through a pointer. Leapfrog
 * KDK (integrate.c: kick, drift; step 0 computes the first forces only).
 * Every -diag steps: energy (K + W from the walk's pot), momentum, the
 * clusters' separation (MPI_Allreduce) into energy_hist[] and the printout;
 * at step 0 force_error_sample compares 32 tree accelerations with a direct
 * sum over gpos. Records: RunStats `stats` (stats_update), the timers
 * t_build, t_walk, t_comm (MPI_Wtime). The parameters are the global
 * `SimParams sim` (params.c, set once by params_setup, read through extern
 * in force.c and main.c). Initial condition: two Plummer spheres on a
 * collision course from a fixed-seed LCG (init.c).
 *   usage: mpirun -np 2 bhtree [-n 6000 -steps 120 -theta 0.6 -dt 0.01
 *                               -eps 0.02 -diag 10]
 * Held out of tuning (issue 30, round 10). Expected ranking, from a
 * code-centric profile (blame record -F 2000, mpicc -g -O2, clang-19;
 * report --by-function and blame dump: 6,796 samples of 2 ranks, quiet
 * machine, 1.73 s a rank, 2.07 s wall):
 *   main 99.0%: compute_forces = walk_force 90.9% (interact 55.6%, its
 *   stores into acc and pot, force.c:18-21, 20.0%; walk_force's own lines
 *   32.0%: the node loads, the opening test, the child loop; inside 3.3%;
 *   the `(*interactions)++` lines 0 samples); gather_positions
 *   (MPI_Allgatherv) 3.6% (rank 0 / rank 1: 6.8 / 0.3%: rank 0 waits for
 *   the slower rank); tree_build 2.3% (tree_insert 2.2%, octant 0.8%,
 *   new_node + pool_alloc 0.2%); tree_moments 1.1%; energy (its
 *   MPI_Allreduce) 0.4%; pack_local 0.1%; kick + drift 0.1%;
 *   force_error_sample 0.1%; two_clusters < 0.1%; MPI_Init 0.2%; ~1% of
 *   the samples outside main. Two more quiet runs (6,869 and 7,093
 *   samples): walk_force 90.8 / 89.9%, gather_positions 3.5 / 4.7%,
 *   tree_build 2.3 / 2.4%, tree_moments 1.1 / 1.0%. Loaded machine: the
 *   Allgatherv waits rise to 27-44% and the walk falls to 48-66%.
 *  1. bodies >= 0.8 x compute_forces: every interaction of the walk adds
 *     into bodies[i].acc and .pot (walk_force's acc and pot); kick, drift
 *     and two_clusters write it too. main's first row, a data structure,
 *     not derived; bodies.acc (if fields are listed) its largest field,
 *     bodies.pos, .vel, .mass below 2% each.
 *  2. gpos >= 0.8 x gather_positions: the receive buffer of the
 *     MPI_Allgatherv (the wait included: MPI time never "reaches no
 *     variable"); below bodies, not derived.
 *  3. pool >= 0.8 x (tree_build + tree_moments): the nodes pool_alloc hands
 *     out are elements of pool.nodes (child pointers, cells, counts,
 *     bodies, mass and com); below bodies, not derived; pool.nodes its
 *     largest field, pool.next_free and pool.max_depth bookkeeping
 *     (derived or < 1%).
 *  4. sendbuf (pack_local, 0.1%) below 1%, below gpos.
 * Read-only after setup, below 1% explicit: the global sim (one row for
 * every file that names it through extern), opt, counts, displs, init.c's
 * lcg_state.
 * Low (records, derived or below 1%): energy_hist, stats (and its fields),
 * interactions (a counter the walk increments through a pointer; below
 * bodies), inter_all, inter_total, ekin, epot, etot, e0, p, sep, worst,
 * rel, err_mean, err_max, nrec, nrec_max, t_build, t_walk, t_comm,
 * t_start, t0..t4, rank, nranks, first, nlocal; loop indices step, k (and
 * i, d, b, s, r anywhere); the scalars of interact (dx, dy, dz, r2, rinv,
 * gm, f), walk_force (dx, dy, dz, r2, size), tree_build (lo, hi, center,
 * half), insert_below (oct, h, c), tree_moments (m, mx).
 * No rows: root (main's and tree_build's: an element of pool.nodes);
 * new_node's n and pool_alloc's result; the node pointers of the walks:
 * walk_force's n, tree_insert's node, insert_below's n, tree_moments' node
 * and c, inside's n; the callees' pointers to main's data: walk_force's
 * pos, acc, pot, interactions; interact's com, pos, acc, pot;
 * compute_forces' root, bodies, b, interactions; kick's, drift's, energy's
 * and two_clusters' b; tree_build's, tree_insert's and insert_below's pool
 * and gpos; tree_moments' gpos; gather_positions' sendbuf, gpos, counts,
 * displs; pack_local's x; stats_update's s and pool; energy's ekin, epot;
 * force_error_sample's gpos, err_mean, err_max; direct_force's x; MPI
 * globals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nbody.h"
#include "tree.h"

#define NSAMPLE 32

typedef struct {
  int n, nsteps, diag;
  double theta, dt, eps;
} Options;

static Options parse_options(int argc, char **argv) {
  Options o = {6000, 120, 10, 0.6, 0.01, 0.02};
  for (int i = 1; i + 1 < argc; i += 2) {
    const char *opt = argv[i], *val = argv[i + 1];
    if (!strcmp(opt, "-n")) o.n = atoi(val);
    else if (!strcmp(opt, "-steps")) o.nsteps = atoi(val);
    else if (!strcmp(opt, "-diag")) o.diag = atoi(val);
    else if (!strcmp(opt, "-theta")) o.theta = atof(val);
    else if (!strcmp(opt, "-dt")) o.dt = atof(val);
    else if (!strcmp(opt, "-eps")) o.eps = atof(val);
  }
  if (o.n < 2) o.n = 2;
  if (o.nsteps < 1) o.nsteps = 1;
  if (o.diag < 1) o.diag = 1;
  return o;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  double t_start = MPI_Wtime();

  Options opt = parse_options(argc, argv);
  if (opt.n < nranks) {
    if (rank == 0)
      fprintf(stderr, "bhtree: fewer bodies (%d) than ranks\n", opt.n);
    MPI_Finalize();
    return 1;
  }
  params_setup(opt.theta, opt.eps, opt.dt);

  int *counts = malloc((size_t)nranks * sizeof(int));
  int *displs = malloc((size_t)nranks * sizeof(int));
  decompose(opt.n, nranks, counts, displs);
  int first = displs[rank] / 4, nlocal = counts[rank] / 4;

  Body *bodies = malloc((size_t)nlocal * sizeof(Body));
  double *sendbuf = malloc(4 * (size_t)nlocal * sizeof(double));
  double *gpos = malloc(4 * (size_t)opt.n * sizeof(double));
  NodePool pool;
  pool_init(&pool, 3 * opt.n + 1000);
  int nrec_max = opt.nsteps / opt.diag + 1, nrec = 0;
  double *energy_hist = malloc((size_t)nrec_max * sizeof(double));
  RunStats stats;
  memset(&stats, 0, sizeof stats);
  double t_build = 0.0, t_walk = 0.0, t_comm = 0.0;
  double err_mean = 0.0, err_max = 0.0, e0 = 0.0;

  two_clusters(bodies, opt.n, first, nlocal);
  if (rank == 0)
    printf("bhtree: %d bodies on %d ranks, two Plummer spheres, theta %.2f,"
           " eps %.3f, dt %.4f, %d steps\n",
           opt.n, nranks, sim.theta, sim.eps, sim.dt, opt.nsteps);

  /* step 0 only computes the first forces; then kick, drift, forces, kick */
  for (int step = 0; step <= opt.nsteps; step++) {
    if (step > 0) {
      kick(bodies, nlocal, 0.5 * sim.dt);
      drift(bodies, nlocal, sim.dt);
    }
    double t0 = MPI_Wtime();
    pack_local(bodies, nlocal, sendbuf);
    gather_positions(sendbuf, counts[rank], gpos, counts, displs,
                     MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    Node *root = tree_build(&pool, gpos, opt.n);
    tree_moments(root, gpos);
    double t2 = MPI_Wtime();
    long interactions = 0;
    compute_forces(root, bodies, nlocal, first, &interactions);
    double t3 = MPI_Wtime();
    if (step > 0)
      kick(bodies, nlocal, 0.5 * sim.dt);
    t_comm += t1 - t0;
    t_build += t2 - t1;
    t_walk += t3 - t2;
    stats_update(&stats, &pool, interactions);

    if (step == 0)
      force_error_sample(bodies, nlocal, first, gpos, opt.n, NSAMPLE,
                         MPI_COMM_WORLD, &err_mean, &err_max);
    if (step % opt.diag == 0) {
      double ekin, epot, p[3];
      long inter_all;
      double t4 = MPI_Wtime();
      energy(bodies, nlocal, MPI_COMM_WORLD, &ekin, &epot);
      momentum(bodies, nlocal, MPI_COMM_WORLD, p);
      double sep = cluster_separation(bodies, nlocal, first, opt.n,
                                      MPI_COMM_WORLD);
      MPI_Allreduce(&interactions, &inter_all, 1, MPI_LONG, MPI_SUM,
                    MPI_COMM_WORLD);
      t_comm += MPI_Wtime() - t4;
      double etot = ekin + epot;
      if (nrec == 0)
        e0 = etot;
      energy_hist[nrec++] = etot;
      if (rank == 0)
        printf("step %4d  t %.3f  E %.9f  K %.6f  W %.6f  dE/E0 %+.2e"
               "  |P| %.1e  sep %.5f  nodes %ld  int/body %.1f\n",
               step, step * sim.dt, etot, ekin, epot, (etot - e0) / fabs(e0),
               sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]), sep,
               stats.nodes_last, (double)inter_all / opt.n);
    }
  }

  double worst = 0.0;
  for (int k = 1; k < nrec; k++) {
    double rel = fabs((energy_hist[k] - energy_hist[0]) / energy_hist[0]);
    if (rel > worst)
      worst = rel;
  }
  long inter_total;
  MPI_Allreduce(&stats.interactions_total, &inter_total, 1, MPI_LONG,
                MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("force error vs direct sum on %d bodies: mean %.3e, max %.3e\n",
           NSAMPLE, err_mean, err_max);
    printf("%d energy records: E %.9f -> %.9f, max |dE/E0| %.3e\n", nrec,
           energy_hist[0], energy_hist[nrec - 1], worst);
    printf("tree: up to %ld nodes, depth %d; %ld interactions in %d force"
           " evaluations (%.1f a body)\n",
           stats.nodes_max, stats.depth_max, inter_total, stats.nforce,
           (double)inter_total / ((double)opt.n * stats.nforce));
  }
  report_timers(t_build, t_walk, t_comm, MPI_Wtime() - t_start, rank,
                MPI_COMM_WORLD);

  free(energy_hist);
  pool_free(&pool);
  free(gpos);
  free(sendbuf);
  free(bodies);
  free(displs);
  free(counts);
  MPI_Finalize();
  return 0;
}
