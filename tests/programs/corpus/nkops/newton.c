/* newton.c: inexact Newton with a backtracking line search. The steps
 * J du = -F are solved by GMRES with finite-difference Jacobian-vector
 * products, J v ~ (F(u + sigma v) - F(u)) / sigma, preconditioned by the
 * inverse of the Jacobian's diagonal. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gmres.h"
#include "newton.h"

typedef struct {
  ResidualFn resid;
  JacDiagFn jdiag;
  void *user_data;
  N_Vector u;            /* the caller's iterate, during a solve */
  double ftol, eta_max, sqrt_uround;
  int max_iter;

  /* work vectors */
  N_Vector u_prev;       /* the iterate before the step */
  N_Vector du;           /* the Newton step */
  N_Vector F;            /* F(u) */
  N_Vector Fpert;        /* F(u + sigma v), in the Jv products */
  N_Vector upert;        /* u + sigma v */
  N_Vector b;            /* -F */
  N_Vector pdiag;        /* inverse of the Jacobian diagonal */
  N_Vector scale;        /* weights of the residual norm */
  GmresWork gw;          /* Krylov basis, Hessenberg, rotations */

  double unorm, eta;     /* |u| for the differencing; the forcing term */

  NewtonStats stats;
  int nhist;
  double norm_hist[NEWTON_MAXHIST]; /* |F| of every iterate of the last solve */
} NewtonMem;

void *NewtonCreate(N_Vector tmpl, int maxl, ResidualFn F, void *user_data) {
  NewtonMem *nm = calloc(1, sizeof *nm);
  if (nm == NULL)
    return NULL;
  nm->resid = F;
  nm->user_data = user_data;
  nm->ftol = 1e-8;
  nm->max_iter = 50;
  nm->eta_max = 0.1;
  nm->sqrt_uround = sqrt(DBL_EPSILON);
  N_Vector *work[] = {&nm->u_prev, &nm->du,    &nm->F,     &nm->Fpert,
                      &nm->upert,  &nm->b,     &nm->pdiag, &nm->scale};
  int ok = GmresWorkInit(&nm->gw, maxl, tmpl) == GMRES_SUCCESS;
  for (size_t i = 0; i < sizeof work / sizeof work[0]; i++)
    ok = (*work[i] = N_VClone(tmpl)) != NULL && ok;
  if (!ok) {
    void *h = nm;
    NewtonFree(&h);
    return NULL;
  }
  N_VConst(1.0, nm->pdiag);
  N_VConst(1.0, nm->scale);
  return nm;
}

void NewtonFree(void **nls) {
  NewtonMem *nm = (NewtonMem *)*nls;
  if (nm == NULL)
    return;
  GmresWorkFree(&nm->gw);
  N_VDestroy(nm->u_prev);
  N_VDestroy(nm->du);
  N_VDestroy(nm->F);
  N_VDestroy(nm->Fpert);
  N_VDestroy(nm->upert);
  N_VDestroy(nm->b);
  N_VDestroy(nm->pdiag);
  N_VDestroy(nm->scale);
  free(nm);
  *nls = NULL;
}

void NewtonSetPreconditioner(void *nls, JacDiagFn jdiag) {
  ((NewtonMem *)nls)->jdiag = jdiag;
}

void NewtonSetTolerances(void *nls, double ftol, double fscale, int max_iter) {
  NewtonMem *nm = (NewtonMem *)nls;
  nm->ftol = ftol;
  N_VConst(fscale, nm->scale);
  nm->max_iter = max_iter < NEWTON_MAXHIST - 1 ? max_iter : NEWTON_MAXHIST - 1;
}

static int newton_eval(NewtonMem *nm, N_Vector u, N_Vector F) {
  double t0 = MPI_Wtime();
  int ret = nm->resid(u, F, nm->user_data);
  nm->stats.t_resid += MPI_Wtime() - t0;
  nm->stats.nfe++;
  return ret;
}

/* Jv = (F(u + sigma v) - F(u)) / sigma, sigma = sqrt(eps) sqrt(1+|u|) / |v| */
static int newton_jtimes(void *data, N_Vector v, N_Vector Jv) {
  NewtonMem *nm = (NewtonMem *)data;
  double vnorm = N_VL2Norm(v);
  if (vnorm == 0.0) {
    N_VConst(0.0, Jv);
    return 0;
  }
  double sigma = nm->sqrt_uround * sqrt(1.0 + nm->unorm) / vnorm;
  N_VLinearSum(1.0, nm->u, sigma, v, nm->upert);
  int ret = newton_eval(nm, nm->upert, nm->Fpert);
  if (ret == 0)
    N_VLinearSum(1.0 / sigma, nm->Fpert, -1.0 / sigma, nm->F, Jv);
  return ret;
}

/* z = D^-1 r */
static int newton_psolve(void *data, N_Vector r, N_Vector z) {
  N_VProd(((NewtonMem *)data)->pdiag, r, z);
  return 0;
}

/* u = u_prev + step du, halving step until |F| decreased enough */
static int newton_linesearch(NewtonMem *nm, double *fnorm_new) {
  double step = 1.0;
  N_VScale(1.0, nm->u, nm->u_prev);
  for (int tries = 0; tries < 12; tries++, step *= 0.5, nm->stats.nbacktr++) {
    N_VLinearSum(1.0, nm->u_prev, step, nm->du, nm->u);
    if (newton_eval(nm, nm->u, nm->F) != 0)
      return NEWTON_RESID_FAIL;
    *fnorm_new = N_VWrmsNorm(nm->F, nm->scale);
    if (*fnorm_new <= (1.0 - 1e-4 * step) * nm->stats.fnorm)
      return 0;
  }
  return NEWTON_LINESEARCH_FAIL;
}

int NewtonSolve(void *nls, N_Vector u) {
  NewtonMem *nm = (NewtonMem *)nls;
  NewtonStats *st = &nm->stats;
  nm->u = u;
  st->nni = st->nli = st->nfe = st->npe = st->nps = st->nbacktr = 0;
  nm->eta = nm->eta_max;
  if (newton_eval(nm, u, nm->F) != 0)
    return NEWTON_RESID_FAIL;
  st->fnorm = N_VWrmsNorm(nm->F, nm->scale);
  nm->norm_hist[0] = st->fnorm;
  nm->nhist = 1;

  while (st->fnorm > nm->ftol) {
    if (st->nni >= nm->max_iter)
      return NEWTON_MAXITER;
    if (nm->jdiag != NULL) { /* the Jacobi preconditioner at u */
      if (nm->jdiag(u, nm->pdiag, nm->user_data) != 0)
        return NEWTON_RESID_FAIL;
      N_VInv(nm->pdiag, nm->pdiag);
      st->npe++;
    }
    /* J du = -F, to |J du + F| <= eta |F| */
    N_VScale(-1.0, nm->F, nm->b);
    nm->unorm = N_VL2Norm(u);
    double res = 0.0, t0 = MPI_Wtime();
    int lflag = GmresSolve(&nm->gw, nm, newton_jtimes, newton_psolve, nm->b,
                           nm->du, nm->eta * N_VL2Norm(nm->b), &res, &st->nli,
                           &st->nps);
    st->t_linear += MPI_Wtime() - t0;
    if (lflag < 0)
      return NEWTON_RESID_FAIL;

    double fnorm_new = 0.0;
    int ls = newton_linesearch(nm, &fnorm_new);
    if (ls != 0)
      return ls;
    /* Eisenstat-Walker forcing term (choice 2, safeguarded) */
    double ratio = fnorm_new / st->fnorm;
    double eta = 0.9 * ratio * ratio, eta_safe = 0.9 * nm->eta * nm->eta;
    if (eta_safe > 0.1)
      eta = fmax(eta, eta_safe);
    nm->eta = fmin(nm->eta_max, fmax(eta, 1e-4));
    st->fnorm = fnorm_new;
    st->nni++;
    if (nm->nhist < NEWTON_MAXHIST)
      nm->norm_hist[nm->nhist++] = st->fnorm;
  }
  return NEWTON_SUCCESS;
}

void NewtonGetStats(void *nls, NewtonStats *st) { *st = ((NewtonMem *)nls)->stats; }

int NewtonGetNormHistory(void *nls, double *hist, int max) {
  const NewtonMem *nm = (const NewtonMem *)nls;
  int n = nm->nhist < max ? nm->nhist : max;
  memcpy(hist, nm->norm_hist, (size_t)n * sizeof(double));
  return n;
}
