/* amrblocks: per-variable checksums. The averaging stencil conserves the sum
 * of every variable on a uniform grid with reflecting walls; with refinement
 * the sums drift a little, and a large drift means a broken exchange. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "block.h"

static const double tol = 2e-3;

double wall_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Returns the number of variables whose sum moved by more than tol. */
int check_sums(int stage) {
  block *bp;
  static double *local;
  static double *global;
  if (local == NULL) {
    local = malloc(sizeof(double) * (size_t)num_vars);
    global = malloc(sizeof(double) * (size_t)num_vars);
  }
  for (int v = 0; v < num_vars; v++)
    local[v] = 0.0;
  for (int in = 0; in < max_num_blocks; in++) {
    bp = &blocks[in];
    if (bp->number < 0)
      continue;
    double w = bp->level == 0 ? 4.0 : 1.0; /* cell area in fine cells */
    for (int v = 0; v < num_vars; v++) {
      double s = 0.0;
      for (int i = 1; i <= x_block_size; i++)
        for (int j = 1; j <= y_block_size; j++)
          s += bp->array[v][i][j];
      local[v] += w * s;
    }
  }
  MPI_Allreduce(local, global, num_vars, MPI_DOUBLE, MPI_SUM, amr_comm);
  int bad = 0;
  for (int v = 0; v < num_vars; v++) {
    if (stage > 0 && fabs(global[v] - grid_sum[v]) > tol * fabs(grid_sum[v])) {
      if (my_pe == 0)
        printf("amrblocks: stage %d variable %d sum %.12e moved from %.12e\n", stage, v, global[v],
               grid_sum[v]);
      bad++;
    }
    grid_sum[v] = global[v];
  }
  return bad;
}
