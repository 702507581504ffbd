/* kspsolve: implicit time steps of a 2-D diffusion problem, each solved by
 * a Krylov solver written the way PETSc is: opaque handles (`typedef struct
 * _p_Mat *Mat`), function-pointer tables (`mat->ops->mult(mat, x, y)`), a
 * KSP holding a Mat and a PC, error codes returned by every call, work
 * vectors owned by the solver, a convergence loop on a residual norm.
 *   usage: kspsolve [n] [steps]
 *
 * Expected ranking (by variable, owner main), derived from a by-function
 * profile (blame report --by-function):
 *   MatMult_SeqAIJ   ~55%  w = A p       (w is one of ksp->work)
 *   VecDot, VecAXPY  ~35%  alpha, beta, rnorm; x += alpha p, r -= alpha w
 *   PCApply_Jacobi    ~5%  z = D^-1 r    (z is one of ksp->work)
 *   assembly          ~1%  the matrix, written once
 *  1. app, app.x: the solution is computed by the whole solve (x += alpha p,
 *     alpha = (r, z) / (p, A p));
 *  2. app.ksp: its work vectors are what mult and the preconditioner write;
 *  3. app.A (the operator, the same object as ksp->mat) is only read by the
 *     solve: it ranks well below app.x;
 *  4. t_solve, nsolves, step (timers and counters) and the KSP's its/rnorm
 *     bookkeeping stay low.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int PetscErrorCode;
typedef int PetscInt;
typedef double PetscScalar;
typedef double PetscReal;

#define CHKERRQ(e)                                                             \
  do {                                                                         \
    if (e) return e;                                                           \
  } while (0)

typedef struct _p_Vec *Vec;
struct _p_Vec {
  PetscInt n;
  PetscScalar *array;
};

typedef struct _p_Mat *Mat;
typedef struct _MatOps {
  PetscErrorCode (*mult)(Mat, Vec, Vec);
  PetscErrorCode (*getdiagonal)(Mat, Vec);
  PetscErrorCode (*destroy)(Mat);
} MatOps;
struct _p_Mat {
  MatOps *ops;
  void *data; /* Mat_SeqAIJ */
  PetscInt m, n;
};
typedef struct {
  PetscInt *i, *j;
  PetscScalar *a;
  PetscInt nz;
} Mat_SeqAIJ;

typedef struct _p_PC *PC;
struct _p_PC {
  PetscErrorCode (*apply)(PC, Vec, Vec);
  Mat pmat;
  Vec diag; /* inverse diagonal */
};

typedef struct _p_KSP *KSP;
struct _p_KSP {
  Mat mat;
  PC pc;
  PetscInt max_it, its;
  PetscReal rtol, rnorm;
  Vec work[4]; /* r, z, p, w */
};

typedef struct {
  KSP ksp;
  Mat A;
  Vec x, b;
  double t_solve;
  int nsolves;
} AppCtx;

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* ---- Vec ---- */
static PetscErrorCode VecCreate(PetscInt n, Vec *v) {
  Vec x = malloc(sizeof(*x));
  if (!x) return 1;
  x->n = n;
  x->array = calloc(n, sizeof(PetscScalar));
  if (!x->array) return 1;
  *v = x;
  return 0;
}
__attribute__((noinline)) PetscErrorCode VecDot(Vec x, Vec y, PetscScalar *d) {
  PetscScalar s = 0;
  for (PetscInt k = 0; k < x->n; k++) s += x->array[k] * y->array[k];
  *d = s;
  return 0;
}
__attribute__((noinline)) PetscErrorCode VecAXPY(Vec y, PetscScalar a, Vec x) {
  for (PetscInt k = 0; k < y->n; k++) y->array[k] += a * x->array[k];
  return 0;
}
/* y = x + b y */
__attribute__((noinline)) PetscErrorCode VecAYPX(Vec y, PetscScalar b, Vec x) {
  for (PetscInt k = 0; k < y->n; k++) y->array[k] = x->array[k] + b * y->array[k];
  return 0;
}
static PetscErrorCode VecCopy(Vec x, Vec y) {
  for (PetscInt k = 0; k < x->n; k++) y->array[k] = x->array[k];
  return 0;
}

/* ---- Mat (AIJ) ---- */
static PetscErrorCode MatMult_SeqAIJ(Mat A, Vec x, Vec y) {
  Mat_SeqAIJ *aij = (Mat_SeqAIJ *)A->data;
  const PetscScalar *xa = x->array;
  PetscScalar *ya = y->array;
  for (PetscInt r = 0; r < A->m; r++) {
    PetscScalar s = 0;
    for (PetscInt k = aij->i[r]; k < aij->i[r + 1]; k++) s += aij->a[k] * xa[aij->j[k]];
    ya[r] = s;
  }
  return 0;
}
static PetscErrorCode MatGetDiagonal_SeqAIJ(Mat A, Vec d) {
  Mat_SeqAIJ *aij = (Mat_SeqAIJ *)A->data;
  for (PetscInt r = 0; r < A->m; r++)
    for (PetscInt k = aij->i[r]; k < aij->i[r + 1]; k++)
      if (aij->j[k] == r) d->array[r] = aij->a[k];
  return 0;
}
static PetscErrorCode MatDestroy_SeqAIJ(Mat A) {
  Mat_SeqAIJ *aij = (Mat_SeqAIJ *)A->data;
  free(aij->i);
  free(aij->j);
  free(aij->a);
  free(aij);
  return 0;
}
static MatOps SeqAIJOps = {MatMult_SeqAIJ, MatGetDiagonal_SeqAIJ, MatDestroy_SeqAIJ};

__attribute__((noinline)) PetscErrorCode MatMult(Mat A, Vec x, Vec y) {
  PetscErrorCode ierr = A->ops->mult(A, x, y);
  CHKERRQ(ierr);
  return 0;
}

/* The 5-point Laplacian plus a shift (backward Euler), n x n grid. */
static PetscErrorCode MatCreateLaplacian(PetscInt n, PetscReal shift, Mat *out) {
  Mat A = malloc(sizeof(*A));
  Mat_SeqAIJ *aij = malloc(sizeof(*aij));
  if (!A || !aij) return 1;
  PetscInt m = n * n;
  aij->i = malloc((m + 1) * sizeof(PetscInt));
  aij->j = malloc(5 * m * sizeof(PetscInt));
  aij->a = malloc(5 * m * sizeof(PetscScalar));
  if (!aij->i || !aij->j || !aij->a) return 1;
  PetscInt nz = 0;
  for (PetscInt gi = 0; gi < n; gi++)
    for (PetscInt gj = 0; gj < n; gj++) {
      PetscInt r = gi * n + gj;
      aij->i[r] = nz;
      if (gi > 0) { aij->j[nz] = r - n; aij->a[nz++] = -1.0; }
      if (gj > 0) { aij->j[nz] = r - 1; aij->a[nz++] = -1.0; }
      aij->j[nz] = r;
      aij->a[nz++] = 4.0 + shift;
      if (gj < n - 1) { aij->j[nz] = r + 1; aij->a[nz++] = -1.0; }
      if (gi < n - 1) { aij->j[nz] = r + n; aij->a[nz++] = -1.0; }
    }
  aij->i[m] = nz;
  aij->nz = nz;
  A->ops = &SeqAIJOps;
  A->data = aij;
  A->m = A->n = m;
  *out = A;
  return 0;
}

/* ---- PC (Jacobi) ---- */
static PetscErrorCode PCApply_Jacobi(PC pc, Vec r, Vec z) {
  const PetscScalar *d = pc->diag->array;
  for (PetscInt k = 0; k < r->n; k++) z->array[k] = d[k] * r->array[k];
  return 0;
}
static PetscErrorCode PCSetUp(PC pc, Mat pmat) {
  PetscErrorCode ierr;
  pc->pmat = pmat;
  ierr = VecCreate(pmat->m, &pc->diag);
  CHKERRQ(ierr);
  ierr = pmat->ops->getdiagonal(pmat, pc->diag);
  CHKERRQ(ierr);
  for (PetscInt k = 0; k < pc->diag->n; k++) pc->diag->array[k] = 1.0 / pc->diag->array[k];
  pc->apply = PCApply_Jacobi;
  return 0;
}
__attribute__((noinline)) PetscErrorCode PCApply(PC pc, Vec r, Vec z) {
  return pc->apply(pc, r, z);
}

/* ---- KSP (preconditioned CG) ---- */
static PetscErrorCode KSPCreate(Mat A, KSP *out) {
  PetscErrorCode ierr;
  KSP ksp = calloc(1, sizeof(*ksp));
  if (!ksp) return 1;
  ksp->mat = A;
  ksp->pc = calloc(1, sizeof(*ksp->pc));
  if (!ksp->pc) return 1;
  ierr = PCSetUp(ksp->pc, A);
  CHKERRQ(ierr);
  for (int k = 0; k < 4; k++) {
    ierr = VecCreate(A->m, &ksp->work[k]);
    CHKERRQ(ierr);
  }
  ksp->max_it = 10000;
  ksp->rtol = 1e-8;
  *out = ksp;
  return 0;
}

static PetscErrorCode KSPSolve(KSP ksp, Vec b, Vec x) {
  PetscErrorCode ierr;
  Vec r = ksp->work[0], z = ksp->work[1], p = ksp->work[2], w = ksp->work[3];
  PetscScalar rz, rz_old, pw, alpha, beta, bb;
  ierr = MatMult(ksp->mat, x, w);
  CHKERRQ(ierr);
  VecCopy(b, r);
  VecAXPY(r, -1.0, w);
  ierr = PCApply(ksp->pc, r, z);
  CHKERRQ(ierr);
  VecCopy(z, p);
  VecDot(r, z, &rz);
  VecDot(b, b, &bb);
  for (ksp->its = 0; ksp->its < ksp->max_it; ksp->its++) {
    ierr = MatMult(ksp->mat, p, w);
    CHKERRQ(ierr);
    VecDot(p, w, &pw);
    alpha = rz / pw;
    VecAXPY(x, alpha, p);
    VecAXPY(r, -alpha, w);
    VecDot(r, r, &ksp->rnorm);
    if (ksp->rnorm < ksp->rtol * ksp->rtol * bb) break;
    ierr = PCApply(ksp->pc, r, z);
    CHKERRQ(ierr);
    rz_old = rz;
    VecDot(r, z, &rz);
    beta = rz / rz_old;
    VecAYPX(p, beta, z);
  }
  ksp->rnorm = sqrt(ksp->rnorm);
  return 0;
}

int main(int argc, char **argv) {
  PetscInt n = argc > 1 ? atoi(argv[1]) : 128;
  int steps = argc > 2 ? atoi(argv[2]) : 60;
  AppCtx app = {0};
  PetscErrorCode ierr;
  PetscReal dt = 0.05, shift = 1.0 / (dt * n * n);
  ierr = MatCreateLaplacian(n, shift, &app.A);
  if (ierr) return 1;
  ierr = KSPCreate(app.A, &app.ksp);
  if (ierr) return 1;
  if (VecCreate(n * n, &app.x) || VecCreate(n * n, &app.b)) return 1;
  for (PetscInt k = 0; k < n * n; k++) app.x->array[k] = (k % n > n / 4 && k % n < 3 * n / 4) ? 1.0 : 0.0;
  int total_its = 0;
  for (int step = 0; step < steps; step++) {
    for (PetscInt k = 0; k < n * n; k++) app.b->array[k] = shift * app.x->array[k];
    double t0 = wall();
    ierr = KSPSolve(app.ksp, app.b, app.x);
    if (ierr) return 1;
    app.t_solve += wall() - t0;
    app.nsolves++;
    total_its += app.ksp->its;
  }
  double sum = 0;
  for (PetscInt k = 0; k < n * n; k++) sum += app.x->array[k];
  printf("kspsolve: %d solves, %d iterations, %.3f s, sum %.6f, last rnorm %.3e\n", app.nsolves,
         total_its, app.t_solve, sum, app.ksp->rnorm);
  app.A->ops->destroy(app.A);
  return 0;
}
