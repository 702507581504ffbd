/* particles.c - the electrons: initial loading, the per-cell linked lists,
 * charge deposition and the leapfrog push.
 *
 * The lists are rebuilt every step: cell_head[c] is the first particle of
 * cell c (-1 if none) and cell_next[k] the particle after k in its cell.
 * Deposition and the push walk the cells and follow the lists, so that the
 * four nodes of a cell are loaded once for all its particles.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pic.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

int *cell_head, *cell_next;
int list_cap;

static unsigned long long rng_state;

static double uniform(void) {
  /* xorshift64*: reproducible on every platform */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (double)((rng_state * 2685821657736338717ULL) >> 11) * (1.0 / 9007199254740992.0);
}

static double gaussian(void) {
  const double u1 = uniform() + 1e-300, u2 = uniform();
  return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void species_reserve(Species *s, int n) {
  Particle *grown;
  if (n <= s->cap)
    return;
  grown = realloc(s->p, (size_t)n * sizeof(Particle));
  if (!grown) {
    fprintf(stderr, "picgrid: out of memory for %d particles\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  s->p = grown;
  s->cap = n;
}

/* Two counter-streaming electron beams, uniform in space with a small
 * sinusoidal displacement that seeds the two-stream instability. */
void particles_init(const Params *prm, Species *s) {
  const int ncell = prm->nx * prm->ny;
  const int n = ncell * prm->ppc;
  int k;
  rng_state = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(prm->rank + 1) * 0xBF58476D1CE4E5B9ULL;
  s->p = NULL;
  s->cap = 0;
  species_reserve(s, n + n / 4);
  s->n = n;
  s->q = -1.0 / prm->ppc;
  s->m = 1.0 / prm->ppc;
  for (k = 0; k < n; k++) {
    Particle *pp = &s->p[k];
    const double beam = (k & 1) ? prm->v0 : -prm->v0;
    double x = prm->nx * uniform();
    x += 0.5 * sin(2.0 * M_PI * 2.0 * x / prm->nx);
    if (x < 0.0)
      x += prm->nx;
    if (x >= prm->nx)
      x -= prm->nx;
    pp->x = x;
    pp->y = prm->y0 + prm->ny * uniform();
    pp->vx = beam + prm->vth * gaussian();
    pp->vy = prm->vth * gaussian();
  }
  cell_head = malloc((size_t)ncell * sizeof(int));
  cell_next = NULL;
  list_cap = 0;
  if (!cell_head) {
    fprintf(stderr, "picgrid: out of memory for the cell lists\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static int cell_of(const Params *prm, const Particle *pp) {
  int ic = (int)pp->x, jc = (int)(pp->y - prm->y0);
  if (ic >= prm->nx)
    ic = prm->nx - 1;
  if (jc < 0)
    jc = 0;
  if (jc >= prm->ny)
    jc = prm->ny - 1;
  return jc * prm->nx + ic;
}

void build_cell_lists(const Params *prm, const Species *s) {
  const int ncell = prm->nx * prm->ny;
  int c, k;
  if (list_cap < s->cap) {
    free(cell_next);
    list_cap = s->cap;
    cell_next = malloc((size_t)list_cap * sizeof(int));
    if (!cell_next) {
      fprintf(stderr, "picgrid: out of memory for the cell lists\n");
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  for (c = 0; c < ncell; c++)
    cell_head[c] = -1;
  /* push in reverse so that each list runs in increasing particle order */
  for (k = s->n - 1; k >= 0; k--) {
    c = cell_of(prm, &s->p[k]);
    cell_next[k] = cell_head[c];
    cell_head[c] = k;
  }
}

/* Cloud-in-cell: a particle in cell (ic, jc) gives charge to the nodes
 * (ic, jc), (ic + 1, jc), (ic, jc + 1), (ic + 1, jc + 1); row jc + 1 of the
 * top cell row is the ghost row, folded back by fold_ghost_charge(). */
void deposit_charge(const Params *prm, const Species *s) {
  const double q = s->q;
  int jc, ic, k, i;
  for (i = 0; i < (ny + 2) * nx; i++)
    rho[i] = 0.0;
  for (jc = 0; jc < prm->ny; jc++) {
    double *row0 = &rho[IDX(jc + 1, 0)];
    double *row1 = &rho[IDX(jc + 2, 0)];
    const double ylo = prm->y0 + jc;
    for (ic = 0; ic < prm->nx; ic++) {
      const int ir = ic + 1 == prm->nx ? 0 : ic + 1;
      double a00 = 0.0, a10 = 0.0, a01 = 0.0, a11 = 0.0;
      for (k = cell_head[jc * prm->nx + ic]; k >= 0; k = cell_next[k]) {
        const Particle *pp = &s->p[k];
        const double fx = pp->x - ic, fy = pp->y - ylo;
        a00 += (1.0 - fx) * (1.0 - fy);
        a10 += fx * (1.0 - fy);
        a01 += (1.0 - fx) * fy;
        a11 += fx * fy;
      }
      row0[ic] += q * a00;
      row0[ir] += q * a10;
      row1[ic] += q * a01;
      row1[ir] += q * a11;
    }
  }
}

/* Leapfrog: v += (q/m) E dt at the particle (bilinear from the cell's four
 * nodes), x += v dt, periodic in x. Particles may leave the slab in y;
 * migrate_particles() hands them on. */
void push_particles(const Params *prm, Species *s) {
  const double qm_dt = s->q / s->m * prm->dt;
  const double dt = prm->dt;
  const double lx = prm->nx;
  int jc, ic, k;
  for (jc = 0; jc < prm->ny; jc++) {
    const double ylo = prm->y0 + jc;
    for (ic = 0; ic < prm->nx; ic++) {
      const int ir = ic + 1 == prm->nx ? 0 : ic + 1;
      const double ex00 = ex[IDX(jc + 1, ic)], ex10 = ex[IDX(jc + 1, ir)];
      const double ex01 = ex[IDX(jc + 2, ic)], ex11 = ex[IDX(jc + 2, ir)];
      const double ey00 = ey[IDX(jc + 1, ic)], ey10 = ey[IDX(jc + 1, ir)];
      const double ey01 = ey[IDX(jc + 2, ic)], ey11 = ey[IDX(jc + 2, ir)];
      for (k = cell_head[jc * prm->nx + ic]; k >= 0; k = cell_next[k]) {
        Particle *pp = &s->p[k];
        const double fx = pp->x - ic, fy = pp->y - ylo;
        const double w00 = (1.0 - fx) * (1.0 - fy), w10 = fx * (1.0 - fy);
        const double w01 = (1.0 - fx) * fy, w11 = fx * fy;
        const double epx = w00 * ex00 + w10 * ex10 + w01 * ex01 + w11 * ex11;
        const double epy = w00 * ey00 + w10 * ey10 + w01 * ey01 + w11 * ey11;
        pp->vx += qm_dt * epx;
        pp->vy += qm_dt * epy;
        pp->x += pp->vx * dt;
        pp->y += pp->vy * dt;
        if (pp->x < 0.0)
          pp->x += lx;
        else if (pp->x >= lx)
          pp->x -= lx;
      }
    }
  }
}
