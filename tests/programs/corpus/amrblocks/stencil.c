/* amrblocks: the five-point averaging stencil, one variable at a time over
 * every block in use. */
#include <stdlib.h>

#include "block.h"

static double **work;

static void alloc_work(void) {
  work = malloc(sizeof(double *) * (size_t)(x_block_size + 2));
  for (int i = 0; i < x_block_size + 2; i++)
    work[i] = malloc(sizeof(double) * (size_t)(y_block_size + 2));
}

void stencil_calc(int var) {
  block *bp;
  if (work == NULL)
    alloc_work();
  for (int in = 0; in < max_num_blocks; in++) {
    bp = &blocks[in];
    if (bp->number < 0)
      continue;
    for (int i = 1; i <= x_block_size; i++)
      for (int j = 1; j <= y_block_size; j++)
        work[i][j] = (bp->array[var][i - 1][j] + bp->array[var][i][j - 1] +
                      bp->array[var][i][j] + bp->array[var][i][j + 1] +
                      bp->array[var][i + 1][j]) / 5.0;
    for (int i = 1; i <= x_block_size; i++)
      for (int j = 1; j <= y_block_size; j++)
        bp->array[var][i][j] = work[i][j];
  }
}

void stencil_driver(void) {
  for (int var = 0; var < num_vars; var++)
    stencil_calc(var);
}
