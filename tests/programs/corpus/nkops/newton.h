/* newton.h: a Jacobian-free Newton-Krylov solver for F(u) = 0, behind an
 * opaque handle (void *) that NewtonCreate returns. */
#ifndef NKOPS_NEWTON_H
#define NKOPS_NEWTON_H

#include "nvector.h"

/* F = F(u), d = diag(dF/du) at u (for the Jacobi preconditioner); 0: ok */
typedef int (*ResidualFn)(N_Vector u, N_Vector F, void *user_data);
typedef int (*JacDiagFn)(N_Vector u, N_Vector d, void *user_data);

#define NEWTON_MAXHIST 64

enum { NEWTON_SUCCESS = 0, NEWTON_MAXITER = 1, NEWTON_LINESEARCH_FAIL = 2,
       NEWTON_RESID_FAIL = -1, NEWTON_MEM_FAIL = -2 };

typedef struct {
  long nni, nli, nfe;  /* nonlinear and linear iterations, F evaluations */
  long npe, nps;       /* preconditioner setups and solves */
  long nbacktr;        /* line-search backtracks */
  double fnorm;        /* scaled residual norm */
  double t_linear, t_resid; /* seconds in GMRES and in F (all solves) */
} NewtonStats;

/* maxl: the GMRES subspace dimension; F is called with user_data */
void *NewtonCreate(N_Vector tmpl, int maxl, ResidualFn F, void *user_data);
void NewtonFree(void **nls);
void NewtonSetPreconditioner(void *nls, JacDiagFn jdiag);
/* stop when the wrms norm of F with weights fscale is below ftol */
void NewtonSetTolerances(void *nls, double ftol, double fscale, int max_iter);
int NewtonSolve(void *nls, N_Vector u);
void NewtonGetStats(void *nls, NewtonStats *st);
int NewtonGetNormHistory(void *nls, double *hist, int max);

#endif
