/* amrblocks: the block structure and the globals shared by main.c, init.c,
 * stencil.c, exchange.c, refine.c and checksum.c.
 *
 * The domain is a grid of coarse positions (npx per rank along x, npy along
 * y, the ranks side by side along x). A position holds either one level-0
 * block or four level-1 blocks of twice the resolution. Every block has
 * x_block_size x y_block_size cells plus one ghost layer, num_vars
 * variables, stored as array[var][i][j] (an array of row pointers per
 * variable, allocated once for every block slot at start-up). */
#ifndef AMRBLOCKS_BLOCK_H
#define AMRBLOCKS_BLOCK_H

#include <mpi.h>

typedef struct block {
  int number;       /* id of the block, -1 when the slot is free */
  int level;        /* 0: covers a whole position; 1: a quarter of one */
  int pos;          /* the position it lies in (local index) */
  int child;        /* level 1: which quarter, cx + 2 * cy */
  int refine;       /* decision of the last refinement check: 1, 0, -1 */
  double cen[2];    /* centre of the block in the unit square */
  double size;      /* edge length of the block */
  double ***array;  /* array[var][i][j], i in 0..x_block_size+1 */
} block;

typedef struct position {
  int refined;      /* 0: slot[0] is the level-0 block; 1: slot[0..3] the children */
  int slot[4];
  int gx, gy;       /* global position indices */
} position;

/* main.c: the blocks and their positions */
extern block *blocks;
extern position *positions;
extern int max_num_blocks, num_active, num_vars;
extern int x_block_size, y_block_size;
extern int npx, npy, num_pos;
extern int my_pe, num_pes;
extern MPI_Comm amr_comm;

/* main.c: communication buffers */
extern double *send_buff, *recv_buff;
extern int comm_buff_size;

/* main.c: run control, timers and counters */
extern int num_tsteps, stages_per_ts, refine_freq, checksum_freq;
extern double timer_all, timer_calc, timer_comm, timer_refine, timer_cs;
extern long num_refined, num_coarsened, num_block_stages, num_comm_msgs;
extern double *grid_sum;   /* per-variable sums of the last checksum */

/* init.c */
void allocate_blocks(void);
void init_blocks(void);
void deallocate_blocks(void);
int alloc_slot(void);
void free_slot(int n);
void set_block_geometry(block *bp, int pos, int level, int child);

/* stencil.c */
void stencil_calc(int var);
void stencil_driver(void);

/* exchange.c */
void exchange_ghosts(void);

/* refine.c */
void refine_check(int ts);
void refine_apply(void);

/* checksum.c */
int check_sums(int stage);
double wall_time(void);

#endif
