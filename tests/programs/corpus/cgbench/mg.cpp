// cgbench: the V-cycle preconditioner over the chain A -> A.Ac -> ...
#include "SparseMatrix.hpp"

// rc = (rf - Axf) at the coarse points
static int restrict_residual(const SparseMatrix &A, const Vector &rf) {
  MGData &mg = *A.mgData;
  const double *Axf = mg.Axf.data();
  const double *rfv = rf.data();
  double *rc = mg.rc.data();
  const local_int_t *f2c = mg.f2cOperator.data();
  const local_int_t nc = A.Ac->localNumberOfRows;
  for (local_int_t i = 0; i < nc; i++)
    rc[i] = rfv[f2c[i]] - Axf[f2c[i]];
  return 0;
}

// xf += xc injected back to the fine points
static int prolong_correction(const SparseMatrix &A, Vector &xf) {
  const MGData &mg = *A.mgData;
  const double *xc = mg.xc.data();
  double *xfv = xf.data();
  const local_int_t *f2c = mg.f2cOperator.data();
  const local_int_t nc = A.Ac->localNumberOfRows;
  for (local_int_t i = 0; i < nc; i++)
    xfv[f2c[i]] += xc[i];
  return 0;
}

int mg_precondition(const SparseMatrix &A, const Vector &r, Vector &x) {
  zero_vector(x);
  if (A.mgData == nullptr)  // coarsest level: smooth only
    return symgs(A, r, x);
  int ierr = 0;
  for (int k = 0; k < A.mgData->numberOfPresmootherSteps; k++)
    ierr += symgs(A, r, x);
  ierr += spmv(A, x, A.mgData->Axf);
  ierr += restrict_residual(A, r);
  ierr += mg_precondition(*A.Ac, A.mgData->rc, A.mgData->xc);
  ierr += prolong_correction(A, x);
  for (int k = 0; k < A.mgData->numberOfPostsmootherSteps; k++)
    ierr += symgs(A, r, x);
  return ierr;
}
