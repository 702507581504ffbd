/* amrblocks: the refinement check and the refinement/coarsening of positions.
 * A position is refined where the edge of a moving disc crosses it or where
 * the first variable varies steeply inside its block; a refined position
 * whose four children all ask for it is coarsened again. */
#include <math.h>

#include "block.h"

static const double refine_threshold = 0.08;

/* Largest jump of variable 0 between neighbouring cells of a block. */
static double block_indicator(int n) {
  block *bp = &blocks[n];
  double jump = 0.0;
  for (int i = 1; i < x_block_size; i++)
    for (int j = 1; j < y_block_size; j++) {
      double dx = fabs(bp->array[0][i + 1][j] - bp->array[0][i][j]);
      double dy = fabs(bp->array[0][i][j + 1] - bp->array[0][i][j]);
      if (dx > jump)
        jump = dx;
      if (dy > jump)
        jump = dy;
    }
  /* a level-0 cell is twice as wide: compare jumps per fine cell */
  return bp->level == 0 ? 0.5 * jump : jump;
}

static int disc_edge_crosses(const block *bp, double ox, double oy, double radius) {
  double h = 0.5 * bp->size;
  double nx = fmax(fabs(ox - bp->cen[0]) - h, 0.0);
  double ny = fmax(fabs(oy - bp->cen[1]) - h, 0.0);
  double dmin = sqrt(nx * nx + ny * ny);
  double fx = fabs(ox - bp->cen[0]) + h, fy = fabs(oy - bp->cen[1]) + h;
  double dmax = sqrt(fx * fx + fy * fy);
  return dmin <= radius && dmax >= radius;
}

void refine_check(int ts) {
  block *bp;
  const double xlen = (double)(npx * num_pes) / npy;
  const double ox = xlen * (0.15 + 0.7 * ts / (double)num_tsteps);
  const double oy = 0.5, radius = 0.22;
  for (int in = 0; in < max_num_blocks; in++) {
    bp = &blocks[in];
    if (bp->number < 0)
      continue;
    int want = disc_edge_crosses(bp, ox, oy, radius) || block_indicator(in) > refine_threshold;
    if (bp->level == 0)
      bp->refine = want ? 1 : 0;
    else
      bp->refine = want ? 0 : -1;
  }
}

static void refine_position(position *pp) {
  block *bp, *bp1;
  int parent = pp->slot[0];
  bp = &blocks[parent];
  const int hx = x_block_size / 2, hy = y_block_size / 2;
  for (int c = 0; c < 4; c++) {
    int n = alloc_slot();
    pp->slot[c] = n;
    bp1 = &blocks[n];
    set_block_geometry(bp1, bp->pos, 1, c);
    int ox = (c % 2) * hx, oy = (c / 2) * hy;
    for (int v = 0; v < num_vars; v++)
      for (int i = 1; i <= x_block_size; i++)
        for (int j = 1; j <= y_block_size; j++)
          bp1->array[v][i][j] = bp->array[v][ox + (i - 1) / 2 + 1][oy + (j - 1) / 2 + 1];
  }
  pp->refined = 1;
  free_slot(parent);
  num_refined++;
}

static void coarsen_position(position *pp, int pos) {
  block *bp, *bp1;
  int n = alloc_slot();
  bp = &blocks[n];
  set_block_geometry(bp, pos, 0, 0);
  const int hx = x_block_size / 2, hy = y_block_size / 2;
  for (int c = 0; c < 4; c++) {
    bp1 = &blocks[pp->slot[c]];
    int ox = (c % 2) * hx, oy = (c / 2) * hy;
    for (int v = 0; v < num_vars; v++)
      for (int i = 1; i <= hx; i++)
        for (int j = 1; j <= hy; j++)
          bp->array[v][ox + i][oy + j] =
              0.25 * (bp1->array[v][2 * i - 1][2 * j - 1] + bp1->array[v][2 * i][2 * j - 1] +
                      bp1->array[v][2 * i - 1][2 * j] + bp1->array[v][2 * i][2 * j]);
    free_slot(pp->slot[c]);
    pp->slot[c] = -1;
  }
  pp->slot[0] = n;
  pp->refined = 0;
  num_coarsened++;
}

void refine_apply(void) {
  for (int pos = 0; pos < num_pos; pos++) {
    position *pp = &positions[pos];
    if (!pp->refined) {
      if (blocks[pp->slot[0]].refine == 1)
        refine_position(pp);
    } else {
      int all = 1;
      for (int c = 0; c < 4; c++)
        if (blocks[pp->slot[c]].refine != -1)
          all = 0;
      if (all)
        coarsen_position(pp, pos);
    }
  }
}
