/* gmres.h: GMRES(m), right preconditioned, on N_Vectors; the operator and
 * the preconditioner are callbacks, the caller owns the workspace. */
#ifndef NKOPS_GMRES_H
#define NKOPS_GMRES_H

#include "nvector.h"

typedef int (*ATimesFn)(void *A_data, N_Vector v, N_Vector z); /* z = A v */
typedef int (*PSolveFn)(void *P_data, N_Vector r, N_Vector z); /* z = M^-1 r */

typedef struct {
  int maxl;           /* Krylov subspace dimension */
  N_Vector *V;        /* maxl + 1 basis vectors */
  double **H;         /* (maxl + 1) x maxl Hessenberg matrix */
  double *givens_c, *givens_s; /* the rotations that triangularize H */
  double *g;          /* rotated right-hand side, maxl + 1 */
  double *y;          /* least-squares solution, maxl */
  double *cgs_dots;   /* the Gram-Schmidt projections, maxl + 1 */
  double *cgs_coef;   /* coefficients of the update, maxl + 2 */
  N_Vector *cgs_vecs; /* vectors of the update (not owned) */
  N_Vector vtemp;     /* M^-1 of a basis vector */
} GmresWork;

enum { GMRES_SUCCESS = 0, GMRES_CONV_FAIL = 1, GMRES_ATIMES_FAIL = -1,
       GMRES_MEM_FAIL = -2 };

int GmresWorkInit(GmresWork *gw, int maxl, N_Vector tmpl);
void GmresWorkFree(GmresWork *gw);
/* Solves A x = b to |b - A x| <= delta from x = 0 in at most maxl
 * iterations; adds the iterations and preconditioner solves to *nli, *nps. */
int GmresSolve(GmresWork *gw, void *A_data, ATimesFn atimes, PSolveFn psolve,
               N_Vector b, N_Vector x, double delta, double *res_norm,
               long *nli, long *nps);

#endif
