/* Geometric multigrid V-cycles with a red-black SOR smoother. */
#include "mg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define IDX(n, i, j) ((size_t)(i) * (size_t)(n) + (size_t)(j))

Vec *vec_create(int n) {
  Vec *v = malloc(sizeof *v);
  v->n = n;
  v->data = calloc((size_t)n * n, sizeof(double));
  return v;
}

void vec_destroy(Vec *v) {
  if (!v)
    return;
  free(v->data);
  free(v);
}

static void vec_zero(Vec *v) { memset(v->data, 0, (size_t)v->n * v->n * sizeof(double)); }

/* Red-black successive over-relaxation: `sweeps` sweeps over the level. */
static int rb_sor_relax(void *relax_data, Level *lev, int sweeps) {
  RelaxData *rd = (RelaxData *)relax_data;
  const int n = lev->n;
  double *x = lev->x->data;
  const double *b = lev->b->data;
  const double off = lev->h2inv;
  const double inv_diag = 1.0 / (lev->shift + 4.0 * lev->h2inv);
  const double w = rd->omega;
  for (int s = 0; s < sweeps; s++) {
    for (int color = 0; color < 2; color++) {
      for (int i = 1; i < n - 1; i++) {
        for (int j = 1 + ((i + color) & 1); j < n - 1; j += 2) {
          double nb = x[IDX(n, i - 1, j)] + x[IDX(n, i + 1, j)] + x[IDX(n, i, j - 1)] +
                      x[IDX(n, i, j + 1)];
          double gs = (b[IDX(n, i, j)] + off * nb) * inv_diag;
          x[IDX(n, i, j)] += w * (gs - x[IDX(n, i, j)]);
        }
      }
    }
  }
  return 0;
}

/* r = b - A x on the interior. */
static void residual(Level *lev) {
  const int n = lev->n;
  const double *x = lev->x->data;
  const double *b = lev->b->data;
  double *r = lev->r->data;
  const double diag = lev->shift + 4.0 * lev->h2inv;
  const double off = lev->h2inv;
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      r[IDX(n, i, j)] = b[IDX(n, i, j)] - diag * x[IDX(n, i, j)] +
                        off * (x[IDX(n, i - 1, j)] + x[IDX(n, i + 1, j)] +
                               x[IDX(n, i, j - 1)] + x[IDX(n, i, j + 1)]);
}

static double norm2(const Vec *v) {
  const int n = v->n;
  double s = 0.0;
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      s += v->data[IDX(n, i, j)] * v->data[IDX(n, i, j)];
  return sqrt(s);
}

/* Full weighting of the fine residual into the coarse right-hand side. */
static void restrict_residual(const Level *fine, Level *coarse) {
  const int nf = fine->n, nc = coarse->n;
  const double *r = fine->r->data;
  double *bc = coarse->b->data;
  for (int I = 1; I < nc - 1; I++) {
    for (int J = 1; J < nc - 1; J++) {
      int i = 2 * I, j = 2 * J;
      bc[IDX(nc, I, J)] =
          0.25 * r[IDX(nf, i, j)] +
          0.125 * (r[IDX(nf, i - 1, j)] + r[IDX(nf, i + 1, j)] + r[IDX(nf, i, j - 1)] +
                   r[IDX(nf, i, j + 1)]) +
          0.0625 * (r[IDX(nf, i - 1, j - 1)] + r[IDX(nf, i - 1, j + 1)] +
                    r[IDX(nf, i + 1, j - 1)] + r[IDX(nf, i + 1, j + 1)]);
    }
  }
}

/* Bilinear interpolation of the coarse correction, added to the fine iterate. */
static void interpolate_add(const Level *coarse, Level *fine) {
  const int nf = fine->n, nc = coarse->n;
  const double *e = coarse->x->data;
  double *x = fine->x->data;
  for (int i = 1; i < nf - 1; i++) {
    int I = i / 2;
    for (int j = 1; j < nf - 1; j++) {
      int J = j / 2;
      double v;
      if ((i & 1) == 0 && (j & 1) == 0)
        v = e[IDX(nc, I, J)];
      else if ((i & 1) == 0)
        v = 0.5 * (e[IDX(nc, I, J)] + e[IDX(nc, I, J + 1)]);
      else if ((j & 1) == 0)
        v = 0.5 * (e[IDX(nc, I, J)] + e[IDX(nc, I + 1, J)]);
      else
        v = 0.25 * (e[IDX(nc, I, J)] + e[IDX(nc, I, J + 1)] + e[IDX(nc, I + 1, J)] +
                    e[IDX(nc, I + 1, J + 1)]);
      x[IDX(nf, i, j)] += v;
    }
  }
}

static void vcycle(Solver *s, MGData *mg) {
  RelaxData *rd = (RelaxData *)s->relax_data;
  const int last = mg->nlevels - 1;
  for (int l = 0; l < last; l++) {
    Level *lev = mg->levels[l];
    s->relax(s->relax_data, lev, rd->pre_sweeps);
    residual(lev);
    restrict_residual(lev, mg->levels[l + 1]);
    vec_zero(mg->levels[l + 1]->x);
  }
  s->relax(s->relax_data, mg->levels[last], mg->coarse_sweeps);
  for (int l = last - 1; l >= 0; l--) {
    interpolate_add(mg->levels[l + 1], mg->levels[l]);
    s->relax(s->relax_data, mg->levels[l], rd->post_sweeps);
  }
}

static int mg_solve(void *solver, Vec *b, Vec *x) {
  Solver *s = (Solver *)solver;
  MGData *mg = (MGData *)s->solve_data;
  Level *fine = mg->levels[0];
  fine->b = b;
  fine->x = x;
  residual(fine);
  const double r0 = norm2(fine->r);
  double rnorm = r0;
  int it = 0;
  while (it < s->max_iter && rnorm > s->tol * r0) {
    vcycle(s, mg);
    residual(fine);
    rnorm = norm2(fine->r);
    it++;
  }
  s->num_iter = it;
  s->res_norm = rnorm;
  return rnorm > s->tol * r0;
}

Solver *mg_create(int n, double shift, double tol, int max_iter) {
  Solver *s = calloc(1, sizeof *s);
  RelaxData *rd = malloc(sizeof *rd);
  rd->pre_sweeps = 2;
  rd->post_sweeps = 2;
  rd->omega = 1.15;
  MGData *mg = calloc(1, sizeof *mg);
  int nlevels = 0;
  for (int m = n; m >= 5 && (m - 1) % 2 == 0; m = (m - 1) / 2 + 1)
    nlevels++;
  mg->nlevels = nlevels;
  mg->coarse_sweeps = 20;
  mg->levels = calloc((size_t)nlevels, sizeof(Level *));
  double h = 1.0 / (n - 1);
  int m = n;
  for (int l = 0; l < nlevels; l++) {
    Level *lev = calloc(1, sizeof *lev);
    lev->n = m;
    lev->h2inv = 1.0 / (h * h);
    lev->shift = shift;
    lev->r = vec_create(m);
    if (l > 0) { /* level 0 uses the caller's vectors */
      lev->x = vec_create(m);
      lev->b = vec_create(m);
    }
    mg->levels[l] = lev;
    m = (m - 1) / 2 + 1;
    h *= 2.0;
  }
  s->relax_data = rd;
  s->solve_data = mg;
  s->relax = rb_sor_relax;
  s->solve = mg_solve;
  s->tol = tol;
  s->max_iter = max_iter;
  return s;
}

int mg_setup(Solver *s, Vec *b, Vec *x) {
  MGData *mg = (MGData *)s->solve_data;
  if (b->n != mg->levels[0]->n || x->n != mg->levels[0]->n)
    return 1;
  mg->levels[0]->b = b;
  mg->levels[0]->x = x;
  return 0;
}

void mg_destroy(Solver *s) {
  MGData *mg = (MGData *)s->solve_data;
  for (int l = 0; l < mg->nlevels; l++) {
    Level *lev = mg->levels[l];
    vec_destroy(lev->r);
    if (l > 0) {
      vec_destroy(lev->x);
      vec_destroy(lev->b);
    }
    free(lev);
  }
  free(mg->levels);
  free(mg);
  free(s->relax_data);
  free(s);
}
