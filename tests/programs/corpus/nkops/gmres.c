/* gmres.c: GMRES(m), right preconditioned: A M^-1 (M x) = b. */
#include <math.h>
#include <stdlib.h>
#include "gmres.h"

int GmresWorkInit(GmresWork *gw, int maxl, N_Vector tmpl) {
  gw->maxl = maxl;
  gw->V = N_VCloneVectorArray(maxl + 1, tmpl);
  gw->H = calloc((size_t)maxl + 1, sizeof(double *));
  gw->givens_c = calloc((size_t)maxl, sizeof(double));
  gw->givens_s = calloc((size_t)maxl, sizeof(double));
  gw->g = calloc((size_t)maxl + 1, sizeof(double));
  gw->y = calloc((size_t)maxl, sizeof(double));
  gw->cgs_dots = calloc((size_t)maxl + 1, sizeof(double));
  gw->cgs_coef = calloc((size_t)maxl + 2, sizeof(double));
  gw->cgs_vecs = calloc((size_t)maxl + 2, sizeof(N_Vector));
  gw->vtemp = N_VClone(tmpl);
  if (gw->V == NULL || gw->H == NULL || gw->givens_c == NULL ||
      gw->givens_s == NULL || gw->g == NULL || gw->y == NULL ||
      gw->cgs_dots == NULL || gw->cgs_coef == NULL || gw->cgs_vecs == NULL ||
      gw->vtemp == NULL || (gw->H[0] = calloc(((size_t)maxl + 1) * (size_t)maxl,
                                               sizeof(double))) == NULL)
    return GMRES_MEM_FAIL;
  for (int i = 1; i <= maxl; i++) /* rows of one block */
    gw->H[i] = gw->H[0] + (size_t)i * (size_t)maxl;
  return GMRES_SUCCESS;
}

void GmresWorkFree(GmresWork *gw) {
  if (gw->H != NULL)
    free(gw->H[0]);
  free(gw->H);
  free(gw->givens_c);
  free(gw->givens_s);
  free(gw->g);
  free(gw->y);
  free(gw->cgs_dots);
  free(gw->cgs_coef);
  free(gw->cgs_vecs);
  N_VDestroyVectorArray(gw->V, gw->maxl + 1);
  N_VDestroy(gw->vtemp);
}

/* Classical Gram-Schmidt: column k of H = the projections of V[k+1] on
 * V[0..k], all in one reduction; returns the norm of what is left. */
static double orthogonalize(GmresWork *gw, int k) {
  N_Vector *V = gw->V;
  double *c = gw->cgs_coef, *h = gw->cgs_dots;
  N_VDotProdMulti(k + 1, V[k + 1], V, h);
  c[0] = 1.0;
  gw->cgs_vecs[0] = V[k + 1];
  for (int i = 0; i <= k; i++) {
    gw->H[i][k] = h[i];
    c[i + 1] = -h[i];
    gw->cgs_vecs[i + 1] = V[i];
  }
  N_VLinearCombination(k + 2, c, gw->cgs_vecs, V[k + 1]);
  return N_VL2Norm(V[k + 1]);
}

/* Applies the first k rotations to column k of H, then the new one that
 * zeroes H[k+1][k], to H and to g. */
static void givens_update(GmresWork *gw, int k) {
  double **H = gw->H;
  for (int i = 0; i < k; i++) {
    double c = gw->givens_c[i], s = gw->givens_s[i];
    double h0 = H[i][k], h1 = H[i + 1][k];
    H[i][k] = c * h0 - s * h1;
    H[i + 1][k] = s * h0 + c * h1;
  }
  double a = H[k][k], b = H[k + 1][k], c = 1.0, s = 0.0;
  if (fabs(b) > fabs(a)) {
    double t = a / b;
    s = -1.0 / sqrt(1.0 + t * t);
    c = -s * t;
  } else if (b != 0.0) {
    double t = b / a;
    c = 1.0 / sqrt(1.0 + t * t);
    s = -c * t;
  }
  gw->givens_c[k] = c;
  gw->givens_s[k] = s;
  H[k][k] = c * a - s * b;
  H[k + 1][k] = 0.0;
  gw->g[k + 1] = s * gw->g[k];
  gw->g[k] *= c;
}

int GmresSolve(GmresWork *gw, void *A_data, ATimesFn atimes, PSolveFn psolve,
               N_Vector b, N_Vector x, double delta, double *res_norm,
               long *nli, long *nps) {
  N_Vector *V = gw->V;
  N_VConst(0.0, x);
  double rho = *res_norm = N_VL2Norm(b);
  if (rho <= delta)
    return GMRES_SUCCESS;
  N_VScale(1.0 / rho, b, V[0]);
  gw->g[0] = rho;
  int k = 0;
  while (k < gw->maxl) {
    /* V[k+1] = A M^-1 V[k] */
    psolve(A_data, V[k], gw->vtemp);
    (*nps)++;
    if (atimes(A_data, gw->vtemp, V[k + 1]) != 0)
      return GMRES_ATIMES_FAIL;
    (*nli)++;
    gw->H[k + 1][k] = orthogonalize(gw, k);
    if (gw->H[k + 1][k] > 0.0)
      N_VScale(1.0 / gw->H[k + 1][k], V[k + 1], V[k + 1]);
    givens_update(gw, k);
    *res_norm = fabs(gw->g[++k]);
    if (*res_norm <= delta)
      break;
  }
  /* y = R^-1 g; x = M^-1 V y */
  for (int i = k - 1; i >= 0; i--) {
    double s = gw->g[i];
    for (int j = i + 1; j < k; j++)
      s -= gw->H[i][j] * gw->y[j];
    gw->y[i] = s / gw->H[i][i];
  }
  N_VLinearCombination(k, gw->y, V, gw->vtemp);
  psolve(A_data, gw->vtemp, x);
  (*nps)++;
  return *res_norm <= delta ? GMRES_SUCCESS : GMRES_CONV_FAIL;
}
