/* jacobi: damped Jacobi iterations for the Poisson equation on a square
 * grid, written the way C solvers are: arrays from a CTAlloc-style macro
 * over an allocator in another translation unit, `restrict` kernels with
 * OpenMP `parallel for` (outlined regions, a reduction), the time-stepping
 * pointer swap (`tmp = u; u = unew; unew = tmp;`), a Params struct passed
 * by pointer and only read, timers and an iteration count.
 *   usage: jacobi [n] [steps]        (OMP_NUM_THREADS=2 in the test)
 *
 * Expected ranking (owner main), derived from a by-function profile
 * (blame report --by-function at 2 kHz, two threads):
 *   jacobi_sweep  ~80%  writes unew from u and f (every step)
 *   residual_norm ~18%  every 4th step: the norm res from u and f
 *   set_source     <1%  writes f once
 *  1. u and unew: the sweep writes the array unew points to, and the swap
 *     makes u point to it for the next step (and unew to the old u): both
 *     pointers name the two solution buffers, so each is blamed for the
 *     sweeps (>= 0.9 x jacobi_sweep) and the residual reads them;
 *  2. f (the source): written once by set_source, only read afterwards:
 *     low (well under u);
 *  3. par (the Params struct, passed by pointer and only read): ~0;
 *  4. res, steps, t0, t1 (norm, iteration count, timers): derived scalars
 *     or low, never above u.
 */
#include <stdio.h>
#include <stdlib.h>

#include "util.h"

static int solve(const Params *par, double **u_io, double **unew_io, const double *f, double *res_out) {
  double *u = *u_io, *unew = *unew_io, *tmp;
  double res = 0.0;
  int step;
  for (step = 0; step < par->max_steps; step++) {
    jacobi_sweep(par->nx, par->ny, unew, u, f, par->h2, par->omega);
    tmp = u;
    u = unew;
    unew = tmp;
    if (step % 4 == 3) {
      res = residual_norm(par->nx, par->ny, u, f, par->h2);
      if (res < par->tol) break;
    }
  }
  *u_io = u;
  *unew_io = unew;
  *res_out = res;
  return step;
}

int main(int argc, char **argv) {
  Params par;
  par.nx = par.ny = argc > 1 ? atoi(argv[1]) : 384;
  par.max_steps = argc > 2 ? atoi(argv[2]) : 4000;
  par.h2 = 1.0 / ((par.nx + 1.0) * (par.nx + 1.0));
  par.omega = 0.8;
  par.tol = 1e-12;
  size_t n = (size_t)(par.nx + 2) * (size_t)(par.ny + 2);
  double *u = CTAlloc(double, n);
  double *unew = CTAlloc(double, n);
  double *f = CTAlloc(double, n);
  set_source(par.nx, par.ny, f);

  double t0 = wall_time();
  double res;
  int steps = solve(&par, &u, &unew, f, &res);
  double t1 = wall_time();

  double center = u[(size_t)(par.nx / 2) * (size_t)(par.ny + 2) + (size_t)(par.ny / 2)];
  printf("jacobi: %d steps, residual %.6e, center %.6e, %.3f s\n", steps, res, center, t1 - t0);
  TFree(u);
  TFree(unew);
  TFree(f);
  return 0;
}
