/* amr_churn: the allocation pattern of an AMR code's start-up and regrids,
 * made heavy: per refinement level an array of blocks, each block an array
 * of variables, each variable an array of rows (three levels of arrays of
 * arrays, as miniAMR and many AMR codes hold them). Every step the finest
 * level is regridded: its blocks are freed and allocated again, with a
 * small per-block work list (a std::vector-like growing buffer) on top.
 *   usage: amr_churn [million_blocks]   (default 10: about 10 million
 *          allocations and as many frees)
 * Prints a checksum so the work is not optimised away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LEVELS = 3, VARS = 4, ROWS = 6, COLS = 6 };

typedef struct {
  double ***var; /* var[v][r][c] */
  int *work;     /* grows by doubling */
  int nwork, capwork;
} block;

typedef struct {
  block *blocks;
  int nblocks;
} level;

static void block_alloc(block *b) {
  b->var = malloc(sizeof(double **) * VARS);
  for (int v = 0; v < VARS; v++) {
    b->var[v] = malloc(sizeof(double *) * ROWS);
    for (int r = 0; r < ROWS; r++) {
      b->var[v][r] = malloc(sizeof(double) * COLS);
      for (int c = 0; c < COLS; c++)
        b->var[v][r][c] = v + r * 0.5 + c * 0.25;
    }
  }
  b->work = NULL;
  b->nwork = b->capwork = 0;
  for (int i = 0; i < 5; i++) {
    if (b->nwork == b->capwork) {
      b->capwork = b->capwork ? 2 * b->capwork : 1;
      b->work = realloc(b->work, sizeof(int) * (size_t)b->capwork);
    }
    b->work[b->nwork++] = i;
  }
}

static void block_free(block *b) {
  for (int v = 0; v < VARS; v++) {
    for (int r = 0; r < ROWS; r++)
      free(b->var[v][r]);
    free(b->var[v]);
  }
  free(b->var);
  free(b->work);
}

static double block_sum(const block *b) {
  double s = 0;
  for (int v = 0; v < VARS; v++)
    for (int r = 0; r < ROWS; r++)
      for (int c = 0; c < COLS; c++)
        s += b->var[v][r][c];
  return s + b->nwork;
}

int main(int argc, char **argv) {
  long million = argc > 1 ? atol(argv[1]) : 10;
  /* Allocation calls per block: 1 + VARS * (1 + ROWS) + 4 reallocs. */
  const long per_block = 1 + VARS * (1 + ROWS) + 4;
  long blocks_total = million * 1000000 / per_block;
  level levels[LEVELS];
  int sizes[LEVELS] = {64, 512, 4096};
  for (int l = 0; l < LEVELS; l++) {
    levels[l].nblocks = sizes[l];
    levels[l].blocks = malloc(sizeof(block) * (size_t)sizes[l]);
    for (int i = 0; i < sizes[l]; i++)
      block_alloc(&levels[l].blocks[i]);
  }
  long made = 64 + 512 + 4096;
  double checksum = 0;
  level *fine = &levels[LEVELS - 1];
  while (made < blocks_total) {
    /* Regrid the finest level. */
    for (int i = 0; i < fine->nblocks && made < blocks_total; i++, made++) {
      checksum += block_sum(&fine->blocks[i]);
      block_free(&fine->blocks[i]);
      block_alloc(&fine->blocks[i]);
    }
  }
  for (int l = 0; l < LEVELS; l++) {
    for (int i = 0; i < levels[l].nblocks; i++) {
      checksum += block_sum(&levels[l].blocks[i]);
      /* The coarsest level is left allocated: a leak at exit. */
      if (l > 0)
        block_free(&levels[l].blocks[i]);
    }
    if (l > 0)
      free(levels[l].blocks);
  }
  printf("blocks %ld checksum %.1f\n", made, checksum);
  return 0;
}
