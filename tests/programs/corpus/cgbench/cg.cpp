// cgbench: preconditioned conjugate gradients. Each kernel is timed; the
// differences are added to the caller's times:
//   times[0] total, [1] dot products, [2] vector updates, [3] SpMV,
//   [4] reductions (inside the dot products), [5] preconditioner.
#include <cmath>
#include <cstdio>

#include "SparseMatrix.hpp"

#define TICK() t0 = mytimer()
#define TOCK(t) t += mytimer() - t0

int cg_solve(const SparseMatrix &A, CGData &data, const Vector &b, Vector &x, int max_iter,
             double tolerance, int &niters, double &normr, double &normr0,
             std::vector<double> &times, bool doPreconditioning) {
  double t_begin = mytimer();
  double t0 = 0.0, t1 = 0.0, t2 = 0.0, t3 = 0.0, t4 = 0.0, t5 = 0.0;
  const local_int_t nrow = A.localNumberOfRows;
  Vector &r = data.r;
  Vector &z = data.z;
  Vector &p = data.p;
  Vector &Ap = data.Ap;
  double rtz = 0.0, oldrtz = 0.0, alpha = 0.0, beta = 0.0, pAp = 0.0;

  normr = 0.0;
  niters = 0;
  // p = x, r = b - A p, normr = |r|
  TICK(); waxpby(nrow, 1.0, x, 0.0, x, p); TOCK(t2);
  TICK(); spmv(A, p, Ap); TOCK(t3);
  TICK(); waxpby(nrow, 1.0, b, -1.0, Ap, r); TOCK(t2);
  TICK(); dot(nrow, r, r, normr, t4); TOCK(t1);
  normr = std::sqrt(normr);
  normr0 = normr;

  for (int k = 1; k <= max_iter && normr / normr0 > tolerance; k++) {
    TICK();
    if (doPreconditioning)
      mg_precondition(A, r, z);
    else
      waxpby(nrow, 1.0, r, 0.0, r, z);
    TOCK(t5);
    if (k == 1) {
      TICK(); waxpby(nrow, 1.0, z, 0.0, z, p); TOCK(t2);
      TICK(); dot(nrow, r, z, rtz, t4); TOCK(t1);
    } else {
      oldrtz = rtz;
      TICK(); dot(nrow, r, z, rtz, t4); TOCK(t1);
      beta = rtz / oldrtz;
      TICK(); waxpby(nrow, 1.0, z, beta, p, p); TOCK(t2);
    }
    TICK(); spmv(A, p, Ap); TOCK(t3);
    TICK(); dot(nrow, p, Ap, pAp, t4); TOCK(t1);
    alpha = rtz / pAp;
    TICK();
    waxpby(nrow, 1.0, x, alpha, p, x);
    waxpby(nrow, 1.0, r, -alpha, Ap, r);
    TOCK(t2);
    TICK(); dot(nrow, r, r, normr, t4); TOCK(t1);
    normr = std::sqrt(normr);
    niters = k;
  }

  times[1] += t1;
  times[2] += t2;
  times[3] += t3;
  times[4] += t4;
  times[5] += t5;
  times[0] += mytimer() - t_begin;
  return 0;
}
