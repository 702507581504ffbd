// cgsolve: conjugate gradients on the 27-point operator of a 3-D box, a
// mini-app in the style of CG benchmarks: a CSR matrix, separate vectors,
// wall-clock accumulators and flop counters around every kernel.
//   usage: cgsolve [nx] [max_iter]
//
// Expected ranking, derived from a by-function profile (2,499 samples):
//   spmv              81.8%  writes Ap
//   waxpby             6.3%  writes x, r and p
//   ddot               5.8%  pAp and rtrans (-> alpha, beta, rnorm)
//   generate_problem   4.8%  writes A, b, xexact
//  main:
//  1. x        ~94%  the solution: x += alpha p with alpha = rtrans / (p . Ap),
//                    so the whole solve computes it
//  2. A        ~5%   generate_problem only (the solve only reads it);
//                    A.vals and A.cols most of that
//  3. b, xexact ~1%  generate_problem
//     (normr, the returned residual norm, is computed by the whole solve)
//  cg_solve: Ap >= the spmv's ~82%; r, p, x computed from it.
// Must not rank high: times (the wall-clock accumulators), flops (the flop
// counter), niters (the iteration count), t_setup; in cg_solve it, t0,
// t_begin.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

struct CsrMatrix {
  int nrows;
  long nnz;
  int *row_ptr;
  int *cols;
  double *vals;
};

enum { T_TOTAL, T_DDOT, T_WAXPBY, T_SPMV, T_NTIMES };

static double wtime() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

// The 27-point operator: 27 on the diagonal, -1 for every neighbour.
static void generate_problem(int nx, CsrMatrix &A, double *&x, double *&b, double *&xexact) {
  const int n = nx * nx * nx;
  A.nrows = n;
  A.row_ptr = new int[n + 1];
  A.cols = new int[(long)n * 27];
  A.vals = new double[(long)n * 27];
  x = new double[n];
  b = new double[n];
  xexact = new double[n];
  long k = 0;
  A.row_ptr[0] = 0;
  for (int iz = 0; iz < nx; iz++)
    for (int iy = 0; iy < nx; iy++)
      for (int ix = 0; ix < nx; ix++) {
        const int row = ix + nx * (iy + nx * iz);
        double sum = 0.0;
        for (int sz = -1; sz <= 1; sz++)
          for (int sy = -1; sy <= 1; sy++)
            for (int sx = -1; sx <= 1; sx++) {
              const int jx = ix + sx, jy = iy + sy, jz = iz + sz;
              if (jx < 0 || jx >= nx || jy < 0 || jy >= nx || jz < 0 || jz >= nx)
                continue;
              const double a = (sx == 0 && sy == 0 && sz == 0) ? 27.0 : -1.0;
              A.cols[k] = jx + nx * (jy + nx * jz);
              A.vals[k] = a;
              sum += a;
              k++;
            }
        A.row_ptr[row + 1] = (int)k;
        x[row] = 0.0;
        xexact[row] = 1.0;
        b[row] = sum; // A * ones
      }
  A.nnz = k;
}

// w = alpha x + beta y
static void waxpby(int n, double alpha, const double *x, double beta, const double *y,
                   double *w) {
  if (alpha == 1.0) {
    for (int i = 0; i < n; i++)
      w[i] = x[i] + beta * y[i];
  } else if (beta == 1.0) {
    for (int i = 0; i < n; i++)
      w[i] = alpha * x[i] + y[i];
  } else {
    for (int i = 0; i < n; i++)
      w[i] = alpha * x[i] + beta * y[i];
  }
}

static double ddot(int n, const double *x, const double *y) {
  double s = 0.0;
  if (x == y) {
    for (int i = 0; i < n; i++)
      s += x[i] * x[i];
  } else {
    for (int i = 0; i < n; i++)
      s += x[i] * y[i];
  }
  return s;
}

static void spmv(const CsrMatrix &A, const double *x, double *y) {
  for (int i = 0; i < A.nrows; i++) {
    double s = 0.0;
    for (int k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++)
      s += A.vals[k] * x[A.cols[k]];
    y[i] = s;
  }
}

// Solves A x = b; returns the iterations taken and the final residual norm.
static int cg_solve(const CsrMatrix &A, const double *b, double *x, int max_iter,
                    double tolerance, int &niters, double &normr, double *times,
                    double &flops) {
  const int n = A.nrows;
  double *r = new double[n];
  double *p = new double[n];
  double *Ap = new double[n];
  double t_begin = wtime();
  double t0;

  t0 = wtime();
  waxpby(n, 1.0, x, 0.0, x, p);
  times[T_WAXPBY] += wtime() - t0;
  flops += 2.0 * n;
  t0 = wtime();
  spmv(A, p, Ap);
  times[T_SPMV] += wtime() - t0;
  flops += 2.0 * A.nnz;
  t0 = wtime();
  waxpby(n, 1.0, b, -1.0, Ap, r);
  times[T_WAXPBY] += wtime() - t0;
  flops += 2.0 * n;
  t0 = wtime();
  double rtrans = ddot(n, r, r);
  times[T_DDOT] += wtime() - t0;
  flops += 2.0 * n;
  double rnorm = std::sqrt(rtrans);

  int it = 0;
  double oldrtrans = 0.0;
  while (it < max_iter && rnorm > tolerance) {
    if (it == 0) {
      t0 = wtime();
      waxpby(n, 1.0, r, 0.0, r, p);
      times[T_WAXPBY] += wtime() - t0;
      flops += 2.0 * n;
    } else {
      const double beta = rtrans / oldrtrans;
      t0 = wtime();
      waxpby(n, 1.0, r, beta, p, p);
      times[T_WAXPBY] += wtime() - t0;
      flops += 2.0 * n;
    }
    t0 = wtime();
    spmv(A, p, Ap);
    times[T_SPMV] += wtime() - t0;
    flops += 2.0 * A.nnz;

    t0 = wtime();
    const double pAp = ddot(n, p, Ap);
    times[T_DDOT] += wtime() - t0;
    flops += 2.0 * n;
    const double alpha = rtrans / pAp;

    t0 = wtime();
    waxpby(n, 1.0, x, alpha, p, x);
    waxpby(n, 1.0, r, -alpha, Ap, r);
    times[T_WAXPBY] += wtime() - t0;
    flops += 4.0 * n;

    oldrtrans = rtrans;
    t0 = wtime();
    rtrans = ddot(n, r, r);
    times[T_DDOT] += wtime() - t0;
    flops += 2.0 * n;
    rnorm = std::sqrt(rtrans);
    it++;
  }
  times[T_TOTAL] += wtime() - t_begin;
  niters = it;
  normr = rnorm;
  delete[] r;
  delete[] p;
  delete[] Ap;
  return rnorm > tolerance;
}

int main(int argc, char **argv) {
  const int nx = argc > 1 ? std::atoi(argv[1]) : 64;
  const int max_iter = argc > 2 ? std::atoi(argv[2]) : 150;
  const double tolerance = 0.0; // run max_iter iterations, as benchmark runs do

  CsrMatrix A;
  double *x, *b, *xexact;
  double t_setup = wtime();
  generate_problem(nx, A, x, b, xexact);
  t_setup = wtime() - t_setup;

  double times[T_NTIMES] = {0.0, 0.0, 0.0, 0.0};
  double flops = 0.0;
  int niters = 0;
  double normr = 0.0;
  cg_solve(A, b, x, max_iter, tolerance, niters, normr, times, flops);

  double err = 0.0;
  for (int i = 0; i < A.nrows; i++)
    err = std::fmax(err, std::fabs(x[i] - xexact[i]));
  std::printf("cgsolve: %d rows, %ld nonzeros, %d iterations, residual %.6e, error %.6e\n",
              A.nrows, A.nnz, niters, normr, err);
  std::printf("cgsolve: setup %.3f s, solve %.3f s (ddot %.3f, waxpby %.3f, spmv %.3f), "
              "%.1f Mflop/s\n",
              t_setup, times[T_TOTAL], times[T_DDOT], times[T_WAXPBY], times[T_SPMV],
              1e-6 * flops / times[T_TOTAL]);
  delete[] A.row_ptr;
  delete[] A.cols;
  delete[] A.vals;
  delete[] x;
  delete[] b;
  delete[] xexact;
  return 0;
}
