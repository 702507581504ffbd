/* amrblocks: allocation of the block slots and the initial state. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "block.h"

static int *free_slots; /* stack of free slot numbers */
static int num_free;
static int next_id;

/* Every slot gets its arrays now, as the mini-apps do, so refinement never
 * allocates: num_vars row tables of x_block_size+2 rows each. */
void allocate_blocks(void) {
  block *bp;
  blocks = malloc(sizeof(block) * (size_t)max_num_blocks);
  free_slots = malloc(sizeof(int) * (size_t)max_num_blocks);
  if (blocks == NULL || free_slots == NULL) {
    fprintf(stderr, "amrblocks: cannot allocate %d blocks\n", max_num_blocks);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int n = 0; n < max_num_blocks; n++) {
    bp = &blocks[n];
    bp->number = -1;
    bp->level = 0;
    bp->refine = 0;
    bp->array = malloc(sizeof(double **) * (size_t)num_vars);
    for (int v = 0; v < num_vars; v++) {
      bp->array[v] = malloc(sizeof(double *) * (size_t)(x_block_size + 2));
      for (int i = 0; i < x_block_size + 2; i++) {
        bp->array[v][i] = malloc(sizeof(double) * (size_t)(y_block_size + 2));
        for (int j = 0; j < y_block_size + 2; j++)
          bp->array[v][i][j] = 0.0;
      }
    }
  }
  num_free = 0;
  for (int n = max_num_blocks - 1; n >= 0; n--)
    free_slots[num_free++] = n;
  next_id = my_pe * 1000000;
}

void deallocate_blocks(void) {
  block *bp;
  for (int n = 0; n < max_num_blocks; n++) {
    bp = &blocks[n];
    for (int v = 0; v < num_vars; v++) {
      for (int i = 0; i < x_block_size + 2; i++)
        free(bp->array[v][i]);
      free(bp->array[v]);
    }
    free(bp->array);
  }
  free(blocks);
  free(free_slots);
  free(positions);
}

int alloc_slot(void) {
  if (num_free == 0) {
    fprintf(stderr, "amrblocks: rank %d out of block slots\n", my_pe);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int n = free_slots[--num_free];
  blocks[n].number = next_id++;
  num_active++;
  return n;
}

void free_slot(int n) {
  blocks[n].number = -1;
  free_slots[num_free++] = n;
  num_active--;
}

void set_block_geometry(block *bp, int pos, int level, int child) {
  const position *pp = &positions[pos];
  double h = 1.0 / npy;
  bp->pos = pos;
  bp->level = level;
  bp->child = child;
  bp->refine = 0;
  if (level == 0) {
    bp->size = h;
    bp->cen[0] = (pp->gx + 0.5) * h;
    bp->cen[1] = (pp->gy + 0.5) * h;
  } else {
    bp->size = 0.5 * h;
    bp->cen[0] = (pp->gx + 0.25 + 0.5 * (child % 2)) * h;
    bp->cen[1] = (pp->gy + 0.25 + 0.5 * (child / 2)) * h;
  }
}

/* Smooth waves of a different phase per variable, and a hot spot in the
 * even ones. */
static double initial_value(int v, double x, double y) {
  const double twopi = 6.283185307179586;
  double val = 1.0 + 0.5 * sin(twopi * (x + 0.1 * v)) * cos(twopi * (y - 0.05 * v));
  if (v % 2 == 0) {
    double dx = x - 0.3, dy = y - 0.6;
    if (dx * dx + dy * dy < 0.01)
      val += 2.0;
  }
  return val;
}

void init_blocks(void) {
  block *bp;
  positions = malloc(sizeof(position) * (size_t)num_pos);
  for (int py = 0; py < npy; py++)
    for (int px = 0; px < npx; px++) {
      int pos = py * npx + px;
      position *pp = &positions[pos];
      pp->refined = 0;
      pp->gx = my_pe * npx + px;
      pp->gy = py;
      pp->slot[0] = alloc_slot();
      pp->slot[1] = pp->slot[2] = pp->slot[3] = -1;
      bp = &blocks[pp->slot[0]];
      set_block_geometry(bp, pos, 0, 0);
      double dx = bp->size / x_block_size, dy = bp->size / y_block_size;
      double x0 = bp->cen[0] - 0.5 * bp->size, y0 = bp->cen[1] - 0.5 * bp->size;
      for (int v = 0; v < num_vars; v++)
        for (int i = 1; i <= x_block_size; i++)
          for (int j = 1; j <= y_block_size; j++)
            bp->array[v][i][j] = initial_value(v, x0 + (i - 0.5) * dx, y0 + (j - 0.5) * dy);
    }
}
