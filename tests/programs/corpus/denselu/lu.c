/* denselu: right-looking blocked LU factorization with partial pivoting of a
 * random dense matrix, then a solve and a residual check.
 *   usage: denselu [n] [nb] [lookahead]
 * The BLAS-like kernels live in libblk.so (blk.c), built separately.
 *
 * Expected ranking, derived from a by-function profile (2,241 samples):
 *   blk_dgemm_nn  82.2%  under update_trailing: A22 -= L21 U12, into the
 *                        trailing matrix (panel->trail points into A.mat),
 *                        mostly through the call clang merges out of the two
 *                        branches (its debug line is 0)
 *   matrix_fill    5.4%  A and A0 (half each)
 *   apply_pivots   4.8%  row swaps in A.mat
 *   blk_dtrsm      3.3%  U12 (panel->u, into A.mat)
 *   panel_factor   2.4%  the panel's columns (panel->a) and ipiv
 *   lu_solve       0.5%  x;  main's residual check 0.8%
 *  main:
 *  1. A, A.mat   ~93%  lu_factor writes every part of the one matrix through
 *                      the panel's pointers, plus matrix_fill(A)
 *  2. ipiv, x          small explicit writes (pivot search, solve), but both
 *                      are computed from A's values: inclusive blame may lift
 *                      them towards A's share
 *  3. A0         ~3%   matrix_fill only; the residual check just reads it
 *  lu_factor: panel >= panel.trail >= the update's ~82%; panel.u >= trsm's.
 * Must not rank high: tm (the Timers), flops (the flop counter), t_factor,
 * t0, info, n, nb, lookahead.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "blk.h"

typedef struct Matrix {
  int n;
  int lda;
  double *mat; /* column-major, lda x n */
} Matrix;

/* A panel of jb columns at step j: pointers into the one matrix. */
typedef struct Panel {
  double *a;     /* the panel's columns, from the diagonal down: &mat[j + j*lda] */
  double *u;     /* the block row right of the diagonal block (U12) */
  double *trail; /* the trailing submatrix (A22) */
  int lda;
  int m;      /* rows of the panel, n - j */
  int nb;     /* its columns */
  int ntrail; /* columns right of it */
  int j0;     /* its first global column */
  int *ipiv;  /* the global pivot rows of its columns */
} Panel;

enum { T_PANEL, T_SWAP, T_TRSM, T_UPDATE, T_COUNT };

typedef struct Timers {
  double start;
  double total[T_COUNT];
} Timers;

static double wall_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void timer_start(Timers *t) { t->start = wall_time(); }
static void timer_stop(Timers *t, int which) { t->total[which] += wall_time() - t->start; }

static double *col(const Matrix *A, int i, int j) { return &A->mat[i + (long)j * A->lda]; }

/* A deterministic pseudo-random matrix (an LCG, as benchmark generators use). */
static void matrix_fill(Matrix *A, unsigned long seed) {
  unsigned long s = seed;
  for (int j = 0; j < A->n; j++)
    for (int i = 0; i < A->n; i++) {
      s = s * 6364136223846793005UL + 1442695040888963407UL;
      *col(A, i, j) = (double)(s >> 11) / 9007199254740992.0 - 0.5;
    }
}

static Panel *panel_new(Matrix *A, int j, int jb, int *ipiv) {
  Panel *p = malloc(sizeof *p);
  p->lda = A->lda;
  p->a = col(A, j, j);
  p->u = col(A, j, j + jb);
  p->trail = col(A, j + jb, j + jb);
  p->m = A->n - j;
  p->nb = jb;
  p->ntrail = A->n - j - jb;
  p->j0 = j;
  p->ipiv = ipiv + j;
  return p;
}

/* Unblocked right-looking factorization of the panel's m x nb columns. */
static int panel_factor(Panel *p) {
  for (int k = 0; k < p->nb; k++) {
    double *ck = p->a + (long)k * p->lda;
    int piv = k + blk_idamax(p->m - k, ck + k, 1);
    p->ipiv[k] = p->j0 + piv;
    if (ck[piv] == 0.0)
      return p->j0 + k + 1;
    if (piv != k) /* swap rows k and piv inside the panel */
      blk_dswap(p->nb, p->a + k, p->lda, p->a + piv, p->lda);
    blk_dscal(p->m - k - 1, 1.0 / ck[k], ck + k + 1, 1);
    if (k + 1 < p->nb)
      blk_dger(p->m - k - 1, p->nb - k - 1, -1.0, ck + k + 1, 1,
               p->a + k + (long)(k + 1) * p->lda, p->lda,
               p->a + k + 1 + (long)(k + 1) * p->lda, p->lda);
  }
  return 0;
}

/* Applies the panel's row interchanges to the columns left and right of it. */
static void apply_pivots(Matrix *A, const Panel *p) {
  for (int k = 0; k < p->nb; k++) {
    int r1 = p->j0 + k, r2 = p->ipiv[k];
    if (r1 == r2)
      continue;
    for (int j = 0; j < p->j0; j++) {
      double t = *col(A, r1, j);
      *col(A, r1, j) = *col(A, r2, j);
      *col(A, r2, j) = t;
    }
    for (int j = p->j0 + p->nb; j < A->n; j++) {
      double t = *col(A, r1, j);
      *col(A, r1, j) = *col(A, r2, j);
      *col(A, r2, j) = t;
    }
  }
}

/* A22 -= L21 U12. With look-ahead the next panel's columns are updated on
 * their own first (so that panel could be factored early); the call that
 * updates the rest is the same in both branches. */
static void update_trailing(Panel *p, int lookahead, int next_nb) {
  int m2 = p->m - p->nb;
  const double *l21 = p->a + p->nb;
  if (lookahead && p->ntrail > next_nb) {
    blk_dgemm_nn(m2, next_nb, p->nb, -1.0, l21, p->lda, p->u, p->lda, 1.0, p->trail, p->lda);
    blk_dgemm_nn(m2, p->ntrail - next_nb, p->nb, -1.0, l21, p->lda,
                 p->u + (long)next_nb * p->lda, p->lda, 1.0,
                 p->trail + (long)next_nb * p->lda, p->lda);
  } else {
    blk_dgemm_nn(m2, p->ntrail, p->nb, -1.0, l21, p->lda, p->u, p->lda, 1.0, p->trail,
                 p->lda);
  }
}

static int lu_factor(Matrix *A, int *ipiv, int nb, int lookahead, Timers *tm, double *flops) {
  const int n = A->n;
  for (int j = 0; j < n; j += nb) {
    int jb = n - j < nb ? n - j : nb;
    Panel *panel = panel_new(A, j, jb, ipiv);

    timer_start(tm);
    int info = panel_factor(panel);
    timer_stop(tm, T_PANEL);
    *flops += (double)panel->m * jb * jb;
    if (info != 0) {
      free(panel);
      return info;
    }

    timer_start(tm);
    apply_pivots(A, panel);
    timer_stop(tm, T_SWAP);

    if (panel->ntrail > 0) {
      timer_start(tm);
      blk_dtrsm_llnu(jb, panel->ntrail, panel->a, panel->lda, panel->u, panel->lda);
      timer_stop(tm, T_TRSM);
      *flops += (double)jb * jb * panel->ntrail;

      timer_start(tm);
      update_trailing(panel, lookahead, nb);
      timer_stop(tm, T_UPDATE);
      *flops += 2.0 * (panel->m - jb) * (double)panel->ntrail * jb;
    }
    free(panel);
  }
  return 0;
}

/* Solves L U x = P b in place. */
static void lu_solve(const Matrix *A, const int *ipiv, double *x) {
  const int n = A->n;
  for (int k = 0; k < n; k++) {
    int r = ipiv[k];
    if (r != k) {
      double t = x[k];
      x[k] = x[r];
      x[r] = t;
    }
  }
  for (int j = 0; j < n; j++)
    for (int i = j + 1; i < n; i++)
      x[i] -= *col(A, i, j) * x[j];
  for (int j = n - 1; j >= 0; j--) {
    x[j] /= *col(A, j, j);
    for (int i = 0; i < j; i++)
      x[i] -= *col(A, i, j) * x[j];
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2200;
  int nb = argc > 2 ? atoi(argv[2]) : 64;
  int lookahead = argc > 3 ? atoi(argv[3]) : 1;

  Matrix A = {n, n, malloc(sizeof(double) * (size_t)n * n)};
  Matrix A0 = {n, n, malloc(sizeof(double) * (size_t)n * n)};
  int *ipiv = malloc(sizeof(int) * (size_t)n);
  double *b = malloc(sizeof(double) * (size_t)n);
  double *x = malloc(sizeof(double) * (size_t)n);
  matrix_fill(&A, 42);
  matrix_fill(&A0, 42);
  for (int i = 0; i < n; i++)
    b[i] = x[i] = 1.0 / (i + 1);

  Timers tm = {0};
  double flops = 0.0;
  double t0 = wall_time();
  int info = lu_factor(&A, ipiv, nb, lookahead, &tm, &flops);
  double t_factor = wall_time() - t0;
  if (info != 0) {
    fprintf(stderr, "denselu: singular at column %d\n", info);
    return 1;
  }
  lu_solve(&A, ipiv, x);

  /* scaled residual ||A0 x - b||_inf / (||A0||_inf ||x||_inf n eps) */
  double rmax = 0.0, amax = 0.0, xmax = 0.0;
  for (int i = 0; i < n; i++) {
    double s = -b[i], rowsum = 0.0;
    for (int j = 0; j < n; j++) {
      s += *col(&A0, i, j) * x[j];
      rowsum += fabs(*col(&A0, i, j));
    }
    rmax = fmax(rmax, fabs(s));
    amax = fmax(amax, rowsum);
    xmax = fmax(xmax, fabs(x[i]));
  }
  double resid = rmax / (amax * xmax * n * 2.220446049250313e-16);
  printf("denselu: n=%d nb=%d scaled residual %.4f %s, x[0]=%.12f\n", n, nb, resid,
         resid < 16.0 ? "PASSED" : "FAILED", x[0]);
  printf("denselu: factor %.3f s (panel %.3f, swap %.3f, trsm %.3f, update %.3f), %.2f Gflop/s\n",
         t_factor, tm.total[T_PANEL], tm.total[T_SWAP], tm.total[T_TRSM], tm.total[T_UPDATE],
         flops / t_factor * 1e-9);
  free(A.mat);
  free(A0.mat);
  free(ipiv);
  free(b);
  free(x);
  return 0;
}
