/* cgfiles: conjugate gradients on the 2-D Poisson matrix, written as a
 * multi-file C solver is: the driver (main.c) holds one Solver struct and
 * hands it by pointer to kernels defined in another translation unit
 * (kernels.c), the matrix and vectors are built in a third (setup.c), and
 * the driver keeps its timers, iteration count and flop counter in the
 * same struct, beside the vectors.
 *   usage: cgfiles [nx] [iterations]
 *
 * Expected ranking (owner main), derived from a by-function profile
 * (blame report --by-function at 2 kHz):
 *   cg_spmv/spmv  ~50%  writes the array s.q points to, from A and p
 *   cg_update     ~20%  writes those of s.x and s.r, from p and q
 *   dot           ~15%  reads r, p, q into scalars (rho, the alpha denominator)
 *   cg_direction  ~10%  writes that of s.p, from r
 *  1. s (the solver: its vectors are what every kernel writes): the top;
 *  2. s.stats.iters, s.stats.flops, s.stats.t_spmv, s.stats.t_total (the
 *     bookkeeping fields): none of the kernels writes them, so none of the
 *     kernels' time is theirs: each low, far below s. This holds only when
 *     a call to a kernel of kernels.c may-defines what that kernel writes
 *     (its write set, from the summary of the other unit) and not
 *     everything its argument reaches: with the worst case every later read
 *     of s.stats.* depends on every kernel call before it, and the counters
 *     inherit the kernels' time.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cg.h"

int main(int argc, char **argv) {
  int nx = argc > 1 ? atoi(argv[1]) : 400;
  int maxit = argc > 2 ? atoi(argv[2]) : 1500;
  Solver s;
  setup_poisson(&s, nx);
  int n = s.A.n;
  double t0 = wall_time();
  s.rho = dot(n, s.r, s.r);
  for (int k = 0; k < maxit; k++) {
    double t = wall_time();
    cg_spmv(&s);
    s.stats.t_spmv += wall_time() - t;
    s.alpha = s.rho / dot(n, s.p, s.q);
    cg_update(&s);
    double rho_new = dot(n, s.r, s.r);
    cg_direction(&s, rho_new / s.rho);
    s.rho = rho_new;
    s.stats.iters++;
    s.stats.flops += 2L * s.A.nnz + 10L * n;
    if (sqrt(rho_new) < 1e-10)
      break;
  }
  s.stats.t_total = wall_time() - t0;
  printf("cg: %ld iterations, residual %.3e, %.2f GFlop/s in %.2f s (spmv %.2f s)\n",
         s.stats.iters, sqrt(s.rho), 1e-9 * s.stats.flops / s.stats.t_total,
         s.stats.t_total, s.stats.t_spmv);
  printf("x[0] = %.6f\n", s.x[0]);
  return 0;
}
