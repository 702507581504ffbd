/* mgsolver: backward-Euler steps of the heat equation on the unit square,
 * each step solved with multigrid V-cycles.
 *   usage: mgsolver [k] [steps]   (grid of 2^k+1 points per side)
 *
 * Expected ranking (by variable, owner main), derived from a by-function
 * profile (blame report --by-function, 2,401 samples at 2 kHz):
 *   rb_sor_relax 62.6%  writes levels[l]->x (level 0's x is main's x)
 *   residual     19.0%  writes levels[l]->r
 *   interpolate   6.2%  adds the coarse correction into levels[l]->x
 *   restrict      6.0%  writes levels[l+1]->b
 *   norm2         3.9%  the residual norm rnorm -> solver->res_norm
 *   form_rhs      0.8%  writes main's b (from x)
 *  1. solver             ~97%  everything the solve computes is reachable from
 *                              it (through the void * solve_data: levels -> x,
 *                              b, r -> data); solver.solve_data likewise (>= the
 *                              V-cycle's 85%); solver.relax_data (the smoother's
 *                              parameters, only read) ~0%.
 *  2. x                  >=50% level-0 relaxation and interpolation (the work on
 *                              level l is 4^-l of level 0's, so level 0 is ~3/4
 *                              of relax); inclusive blame may lift it up to
 *                              solver's share, never above it.
 *  3. b                   ~1%  written by form_rhs only (the solve reads it);
 *                              computed from x, so inclusive blame may lift it.
 * Must not rank high: total_iters, step (iteration counts), t_setup, t_solve,
 * ts, t0 (timers); in mg_solve it and s.num_iter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mg.h"

static double wall_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A hot square in the middle of a cold plate. */
static void init_state(Vec *u) {
  const int n = u->n;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      u->data[(size_t)i * n + j] =
          (i > n / 4 && i < 3 * n / 4 && j > n / 4 && j < 3 * n / 4) ? 1.0 : 0.0;
  for (int k = 0; k < n; k++) { /* Dirichlet boundary */
    u->data[k] = u->data[(size_t)(n - 1) * n + k] = 0.0;
    u->data[(size_t)k * n] = u->data[(size_t)k * n + n - 1] = 0.0;
  }
}

/* Backward Euler: (I/dt - Laplacian) u_new = u_old / dt. */
static void form_rhs(Vec *b, const Vec *u, double inv_dt) {
  const size_t len = (size_t)u->n * u->n;
  for (size_t k = 0; k < len; k++)
    b->data[k] = inv_dt * u->data[k];
}

static double checksum(const Vec *u) {
  double s = 0.0;
  const size_t len = (size_t)u->n * u->n;
  for (size_t k = 0; k < len; k++)
    s += u->data[k] * (double)(k % 7 + 1);
  return s;
}

int main(int argc, char **argv) {
  int k = argc > 1 ? atoi(argv[1]) : 10;
  int nsteps = argc > 2 ? atoi(argv[2]) : 6;
  const int n = (1 << k) + 1;
  const double dt = 1e-4;

  Vec *x = vec_create(n);
  Vec *b = vec_create(n);
  init_state(x);

  double t0 = wall_time();
  Solver *solver = mg_create(n, 1.0 / dt, 1e-9, 40);
  if (mg_setup(solver, b, x) != 0) {
    fprintf(stderr, "mgsolver: setup failed\n");
    return 1;
  }
  double t_setup = wall_time() - t0;

  double t_solve = 0.0;
  int total_iters = 0;
  for (int step = 0; step < nsteps; step++) {
    form_rhs(b, x, 1.0 / dt);
    double ts = wall_time();
    if (solver->solve(solver, b, x) != 0)
      fprintf(stderr, "step %d: not converged (%g)\n", step, solver->res_norm);
    t_solve += wall_time() - ts;
    total_iters += solver->num_iter;
  }

  printf("mgsolver: n=%d steps=%d iterations=%d checksum=%.10e\n", n, nsteps, total_iters,
         checksum(x));
  printf("mgsolver: setup %.3f s, solve %.3f s\n", t_setup, t_solve);
  mg_destroy(solver);
  vec_destroy(x);
  vec_destroy(b);
  return 0;
}
