/* bratu.h: u_t - div(k(u) grad u) - lambda exp(u / (1 + eps u)) = f with
 * k(u) = (1 + u)^m (Bratu-Gelfand with Arrhenius reaction and nonlinear
 * conduction), u = 0 on the edge of the unit square, nx x ny interior
 * points split in rows over the ranks. A backward Euler step is F(u) = 0,
 * F = hx*hy [(u - u_old)/dt - div(k grad u) - lambda exp(..) - f]. */
#ifndef NKOPS_BRATU_H
#define NKOPS_BRATU_H

#include <mpi.h>

#include "nvector.h"

typedef struct {
  MPI_Comm comm;
  int rank, nranks;
  int nbr_lo, nbr_hi;  /* ranks owning the rows below / above, or MPI_PROC_NULL */
  int nx, ny;          /* global interior points */
  int ny_local, row0;  /* rows owned here, global index of the first */
  double hx, hy;
  double lambda, eps;  /* reaction: Frank-Kamenetskii parameter, 1/activation */
  double kexp;         /* conductivity exponent m */
  double dt;           /* time step (0: steady) */
  double *uold;        /* the solution at the previous time level */
  double *fsrc;        /* hx*hy*f at every local point */
  double *ghost_lo;    /* the row below the first local row */
  double *ghost_hi;    /* the row above the last local row */
  double *kcell;       /* k(u) of the local rows and the ghost rows */
  long nexchange;      /* ghost exchanges done */
} BratuProblem;

BratuProblem *BratuCreate(MPI_Comm comm, int nx, int ny, double lambda);
void BratuFree(BratuProblem *p);
long BratuLocalSize(const BratuProblem *p);
void BratuInitialGuess(BratuProblem *p, N_Vector u);
void BratuBeginStep(BratuProblem *p, double dt, N_Vector u);

/* the callbacks of the Newton solver; user_data is the BratuProblem */
int BratuResidual(N_Vector u, N_Vector F, void *user_data);
int BratuJacDiag(N_Vector u, N_Vector d, void *user_data);

#endif
