/* bratu.c: residual and Jacobian diagonal of the reaction-diffusion
 * problem, with the ghost rows exchanged inside the residual. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bratu.h"

#define TAG_TO_LO 101
#define TAG_TO_HI 102

BratuProblem *BratuCreate(MPI_Comm comm, int nx, int ny, double lambda) {
  BratuProblem *p = calloc(1, sizeof *p);
  if (p == NULL)
    return NULL;
  p->comm = comm;
  MPI_Comm_rank(comm, &p->rank);
  MPI_Comm_size(comm, &p->nranks);
  p->nx = nx;
  p->ny = ny;
  int base = ny / p->nranks, extra = ny % p->nranks;
  p->ny_local = base + (p->rank < extra ? 1 : 0);
  p->row0 = p->rank * base + (p->rank < extra ? p->rank : extra);
  p->nbr_lo = p->rank > 0 ? p->rank - 1 : MPI_PROC_NULL;
  p->nbr_hi = p->rank < p->nranks - 1 ? p->rank + 1 : MPI_PROC_NULL;
  p->hx = 1.0 / (nx + 1);
  p->hy = 1.0 / (ny + 1);
  p->lambda = lambda;
  p->eps = 0.05;
  p->kexp = 2.5;

  size_t n = (size_t)nx * (size_t)p->ny_local;
  p->ghost_lo = calloc((size_t)nx, sizeof(double)); /* zero on the boundary */
  p->ghost_hi = calloc((size_t)nx, sizeof(double));
  p->uold = calloc(n, sizeof(double));
  p->fsrc = malloc(n * sizeof(double));
  p->kcell = malloc((n + 2 * (size_t)nx) * sizeof(double));
  if (!p->ghost_lo || !p->ghost_hi || !p->uold || !p->fsrc || !p->kcell) {
    BratuFree(p);
    return NULL;
  }
  /* a heat source off the centre, on a uniform background */
  for (int j = 0; j < p->ny_local; j++)
    for (int i = 0; i < nx; i++) {
      double x = (i + 1) * p->hx - 0.35, y = (p->row0 + j + 1) * p->hy - 0.6;
      p->fsrc[(long)j * nx + i] = p->hx * p->hy * (2.0 * exp(-30.0 * (x * x + y * y)) + 0.3);
    }
  return p;
}

void BratuFree(BratuProblem *p) {
  free(p->kcell);
  free(p->fsrc);
  free(p->uold);
  free(p->ghost_hi);
  free(p->ghost_lo);
  free(p);
}

long BratuLocalSize(const BratuProblem *p) { return (long)p->nx * p->ny_local; }

/* u0: a bubble vanishing on the edge */
void BratuInitialGuess(BratuProblem *p, N_Vector u) {
  double *ud = N_VGetArrayPointer(u);
  double amp = p->lambda / (p->lambda + 1.0);
  for (int j = 0; j < p->ny_local; j++)
    for (int i = 0; i < p->nx; i++) {
      double x = (i + 1) * p->hx, y = (p->row0 + j + 1) * p->hy;
      ud[(long)j * p->nx + i] = amp * sqrt(fmin(x, 1.0 - x) * fmin(y, 1.0 - y));
    }
}

/* the next backward Euler step starts from u */
void BratuBeginStep(BratuProblem *p, double dt, N_Vector u) {
  p->dt = dt;
  memcpy(p->uold, N_VGetArrayPointer(u), (size_t)BratuLocalSize(p) * sizeof(double));
}

/* The first local row goes to the rank below (its ghost_hi), the last to
 * the rank above (its ghost_lo). */
static void exchange_ghosts(BratuProblem *p, const double *ud) {
  int nx = p->nx;
  const double *last = ud + (long)(p->ny_local - 1) * nx;
  MPI_Sendrecv(ud, nx, MPI_DOUBLE, p->nbr_lo, TAG_TO_LO, p->ghost_hi, nx,
               MPI_DOUBLE, p->nbr_hi, TAG_TO_LO, p->comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(last, nx, MPI_DOUBLE, p->nbr_hi, TAG_TO_HI, p->ghost_lo, nx,
               MPI_DOUBLE, p->nbr_lo, TAG_TO_HI, p->comm, MPI_STATUS_IGNORE);
  p->nexchange++;
}

/* a power law, as in radiative or electron heat conduction */
static inline double conductivity(double m, double u) { return pow(1.0 + u, m); }

/* p->kcell = k(u) of the ghost row below (row 0), the local rows and the
 * ghost row above (row ny_local + 1) */
static void update_conductivity(BratuProblem *p, const double *ud) {
  int nx = p->nx, nyl = p->ny_local;
  for (int r = 0; r < nyl + 2; r++) {
    const double *src = r == 0         ? p->ghost_lo
                        : r == nyl + 1 ? p->ghost_hi
                                       : ud + (long)(r - 1) * nx;
    double *k = p->kcell + (long)r * nx;
    for (int i = 0; i < nx; i++)
      k[i] = conductivity(p->kexp, src[i]);
  }
}

typedef struct {
  double sx, sy, hl, mass, eps; /* hy/hx, hx/hy, hx*hy*lambda, hx*hy/dt */
} RowCoef;

/* One row of F from the rows below (dn) and above (up) and their
 * conductivities; a face's is the mean of its cells'. At x = 0, 1: u = 0,
 * k = 1. */
static void residual_row(int nx, const RowCoef *c, const double *dn,
                         const double *row, const double *up, const double *kdn,
                         const double *krow, const double *kup,
                         const double *old, const double *f, double *F) {
  for (int i = 0; i < nx; i++) {
    double uc = row[i], kc = krow[i];
    double ul = i > 0 ? row[i - 1] : 0.0, kl = i > 0 ? krow[i - 1] : 1.0;
    double ur = i < nx - 1 ? row[i + 1] : 0.0, kr = i < nx - 1 ? krow[i + 1] : 1.0;
    double flux_x = 0.5 * ((kc + kl) * (uc - ul) + (kc + kr) * (uc - ur));
    double flux_y = 0.5 * ((kc + kdn[i]) * (uc - dn[i]) + (kc + kup[i]) * (uc - up[i]));
    double react = c->hl * exp(uc / (1.0 + c->eps * uc));
    F[i] = c->mass * (uc - old[i]) + c->sx * flux_x + c->sy * flux_y - react - f[i];
  }
}

int BratuResidual(N_Vector u, N_Vector F, void *user_data) {
  BratuProblem *p = (BratuProblem *)user_data;
  const double *ud = N_VGetArrayPointer(u);
  double *Fd = N_VGetArrayPointer(F);
  int nx = p->nx, nyl = p->ny_local;
  RowCoef c = {p->hy / p->hx, p->hx / p->hy, p->hx * p->hy * p->lambda,
               p->dt > 0.0 ? p->hx * p->hy / p->dt : 0.0, p->eps};

  exchange_ghosts(p, ud);
  update_conductivity(p, ud);
  for (int j = 0; j < nyl; j++) {
    const double *row = ud + (long)j * nx;
    const double *krow = p->kcell + (long)(j + 1) * nx;
    residual_row(nx, &c, j > 0 ? row - nx : p->ghost_lo, row,
                 j < nyl - 1 ? row + nx : p->ghost_hi, krow - nx, krow,
                 krow + nx, p->uold + (long)j * nx, p->fsrc + (long)j * nx,
                 Fd + (long)j * nx);
  }
  return 0;
}

/* diag(dF/du), the conductivity frozen at the cell's value */
int BratuJacDiag(N_Vector u, N_Vector d, void *user_data) {
  BratuProblem *p = (BratuProblem *)user_data;
  const double *ud = N_VGetArrayPointer(u);
  double *dd = N_VGetArrayPointer(d);
  double stencil = 2.0 * p->hy / p->hx + 2.0 * p->hx / p->hy;
  double hl = p->hx * p->hy * p->lambda;
  double mass = p->dt > 0.0 ? p->hx * p->hy / p->dt : 0.0;
  for (long k = 0; k < BratuLocalSize(p); k++) {
    double den = 1.0 + p->eps * ud[k];
    double react = hl * exp(ud[k] / den) / (den * den);
    dd[k] = fmax(mass + stencil * conductivity(p->kexp, ud[k]) - react,
                 0.1 * stencil); /* keep the preconditioner positive */
  }
  return 0;
}
