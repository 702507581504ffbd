/* amrblocks: an adaptive-mesh-refinement proxy. The blocks live in one
 * global array `block *blocks` defined here and used through `extern` (block.h)
 * by init.c, stencil.c, exchange.c, refine.c and checksum.c; each routine
 * walks the slots with an element pointer `block *bp = &blocks[n]` and works
 * on bp->array[var][i][j]. Every stage: ghost exchange (exchange.c: on-rank
 * faces copied, faces between ranks packed into the global send_buff and
 * received into recv_buff with MPI_Isend/MPI_Irecv/MPI_Waitall), then the
 * five-point averaging stencil on every variable of every block
 * (stencil.c); every 10 stages per-variable checksums (MPI_Allreduce); every
 * 5 time steps a refinement check and the refinement or coarsening of
 * positions (refine.c).
 *   usage: mpirun -np 2 amrblocks [block_size] [time_steps] [num_vars]
 *          (defaults 48, 40 and 8; 10 stages per time step)
 *
 * Expected ranking, derived from a by-function profile (perf record -F 999
 * -g --call-graph dwarf of a clang-19 -O2 -g build, on a 2-core machine
 * loaded by another build, load average ~4.9):
 *                      1 rank (961 samples)   2 ranks (3,572 samples)
 *   stencil_calc              70.8%                 34.6%   blocks[].array (via bp)
 *                                                          and stencil.c's work
 *   exchange_ghosts           18.7%                 36.6%   ghost cells of
 *     of which MPI_Waitall       -                  25.7%   blocks[].array; the
 *     (+ MPI progress with cut stacks: 20.0%)               receive into recv_buff
 *   check_sums + Allreduce     4.8%                  5.5%   grid_sum
 *   init/allocate_blocks       2.3%                  <1%    blocks
 *   refine_check/apply         0.5%                  <1%    blocks, positions
 *   MPI_Init                   1.8%                  0.5%
 * (the ranks exchange ghosts 400 times, so on a loaded machine they wait for
 * each other a lot: 45-50% of the 2-rank samples are waits.)
 *  1. blocks       >= 90% (1 rank) / >= 70% (2 ranks): one row, type `block *`,
 *                  defined at main.c, whatever file the samples are in;
 *                  blocks.array nearly the same. No rows for the element
 *                  pointers bp, bp1: their blame is blocks'.
 *  2. recv_buff    the inter-rank ghost data: the waits of the receive (up to
 *                  ~45% on a loaded machine), never above blocks, whose ghost
 *                  cells are copied from it;
 *  3. send_buff    packing (~1%) and the send half of the waits;
 *  4. work         stencil.c's scratch rows: at most blocks' share;
 *  5. grid_sum     the per-variable checksums (~5%): a record of results,
 *                  listed with the derived variables;
 *  6. positions    refinement bookkeeping (<1%).
 * Must not rank high: timer_all, timer_calc, timer_comm, timer_refine,
 * timer_cs (timers), num_refined, num_coarsened, num_block_stages,
 * num_comm_msgs, num_active (counters), stage, ts, bad, amr_comm (the
 * communicator), my_pe, num_pes, num_vars, x_block_size, y_block_size.
 * No MPI-internal globals (ompi_mpi_comm_world, ...) as rows.
 */
#include <stdio.h>
#include <stdlib.h>

#include "block.h"

/* The blocks, defined here and used through block.h everywhere else. */
block *blocks;
position *positions;
int max_num_blocks, num_active, num_vars;
int x_block_size, y_block_size;
int npx, npy, num_pos;
int my_pe, num_pes;
MPI_Comm amr_comm;

double *send_buff, *recv_buff;
int comm_buff_size;

int num_tsteps, stages_per_ts, refine_freq, checksum_freq;
double timer_all, timer_calc, timer_comm, timer_refine, timer_cs;
long num_refined, num_coarsened, num_block_stages, num_comm_msgs;
double *grid_sum;

static void parse_args(int argc, char **argv) {
  x_block_size = argc > 1 ? atoi(argv[1]) : 48;
  y_block_size = x_block_size;
  num_tsteps = argc > 2 ? atoi(argv[2]) : 40;
  num_vars = argc > 3 ? atoi(argv[3]) : 8;
  if (x_block_size < 4 || x_block_size % 2 != 0) {
    if (my_pe == 0)
      fprintf(stderr, "amrblocks: block size must be even and at least 4\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  npx = 4;
  npy = 8;
  num_pos = npx * npy;
  max_num_blocks = 4 * num_pos;
  stages_per_ts = 10;
  refine_freq = 5;
  checksum_freq = 10;
}

static void print_summary(void) {
  double t[5] = {timer_all, timer_calc, timer_comm, timer_refine, timer_cs}, tmax[5];
  long counts[4] = {num_refined, num_coarsened, num_block_stages, num_comm_msgs}, csum[4];
  MPI_Reduce(t, tmax, 5, MPI_DOUBLE, MPI_MAX, 0, amr_comm);
  MPI_Reduce(counts, csum, 4, MPI_LONG, MPI_SUM, 0, amr_comm);
  int active = num_active, total_active;
  MPI_Reduce(&active, &total_active, 1, MPI_INT, MPI_SUM, 0, amr_comm);
  if (my_pe != 0)
    return;
  printf("amrblocks: %d ranks, %d positions per rank, blocks %dx%d, %d variables\n", num_pes,
         num_pos, x_block_size, y_block_size, num_vars);
  printf("amrblocks: %d time steps of %d stages, %ld refinements, %ld coarsenings, %d blocks at "
         "the end, %ld block-stages, %ld messages\n",
         num_tsteps, stages_per_ts, csum[0], csum[1], total_active, csum[2], csum[3]);
  for (int v = 0; v < num_vars; v++)
    printf("amrblocks: checksum variable %d = %.12e\n", v, grid_sum[v]);
  printf("amrblocks: time %.3f s: calc %.3f comm %.3f refine %.3f checksum %.3f\n", tmax[0],
         tmax[1], tmax[2], tmax[3], tmax[4]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &amr_comm);
  MPI_Comm_rank(amr_comm, &my_pe);
  MPI_Comm_size(amr_comm, &num_pes);
  parse_args(argc, argv);

  comm_buff_size = 2 * npy * num_vars * 2 * y_block_size;
  send_buff = malloc(sizeof(double) * (size_t)comm_buff_size);
  recv_buff = malloc(sizeof(double) * (size_t)comm_buff_size);
  grid_sum = calloc((size_t)num_vars, sizeof(double));

  allocate_blocks();
  init_blocks();
  refine_check(0);
  refine_apply();
  exchange_ghosts();
  check_sums(0);

  double t0 = wall_time();
  int stage = 0, bad = 0;
  for (int ts = 1; ts <= num_tsteps; ts++) {
    for (int s = 0; s < stages_per_ts; s++) {
      double t = wall_time();
      exchange_ghosts();
      timer_comm += wall_time() - t;

      t = wall_time();
      stencil_driver();
      timer_calc += wall_time() - t;
      num_block_stages += num_active;

      if (++stage % checksum_freq == 0) {
        t = wall_time();
        bad += check_sums(stage);
        timer_cs += wall_time() - t;
      }
    }
    if (ts % refine_freq == 0) {
      double t = wall_time();
      refine_check(ts);
      refine_apply();
      timer_refine += wall_time() - t;
    }
  }
  timer_all = wall_time() - t0;

  print_summary();
  if (bad && my_pe == 0)
    printf("amrblocks: %d checksum failures\n", bad);
  deallocate_blocks();
  free(send_buff);
  free(recv_buff);
  free(grid_sum);
  MPI_Comm_free(&amr_comm);
  MPI_Finalize();
  return bad ? 1 : 0;
}
