// cgbench: a sparse conjugate-gradient benchmark with a multigrid
// preconditioner. Each rank owns an n^3 box of a 27-point operator (the
// ranks stacked in z, halo planes exchanged with MPI_Irecv/MPI_Send/
// MPI_Waitall); the matrix is a CSR SparseMatrix whose coarser levels hang
// off it (A.Ac, A.mgData: injection map and the V-cycle's vectors rc, xc,
// Axf); the CG vectors are std::vector<double> (CGData: r, z, p, Ap). The
// benchmark main keeps its timings in `std::vector<double> times`, which it
// fills with timer differences and also passes to cg_solve, which adds its
// own; dot(n, x, y, result, time_allreduce) has two reference outputs (the
// product and the reduction's timer). After each benchmark solve the relative
// residual goes into `TestNormData testnorm_data`, whose mean and variance
// are computed at the end.
//   usage: mpirun -np 2 cgbench [n] [solves] [iterations]   (40, 3, 30)
//
// Expected ranking, derived from a by-function profile (perf record -F 999
// -g --call-graph dwarf of a clang-19 -O2 -g build, on a 2-core machine
// loaded by another build, load average ~4.5):
//                                  1 rank (1,031)   2 ranks (9,165 samples)
//   symgs, fine level (-> z)              58.4%        28.4%  writes data.z
//   symgs, coarser levels (-> xc)          8.6%         3.6%  A.mgData->xc, A.Ac->...
//   spmv in cg_solve (-> Ap)              11.3%         7.2%  data.Ap
//   spmv in the V-cycle (-> Axf)          12.7%         7.8%  A.mgData->Axf, ...
//   dot (+ MPI_Allreduce)                  1.6%         1.1%  rtz, pAp, normr; and
//                                                             times[4] via t4
//   waxpby                                 2.8%         0.8%  x, data.r, data.p
//   restriction, prolongation              0.6%         0.3%  A.mgData->rc, z, xc
//   generate_problem (setup)               1.6%         0.4%  A, b, xexact
//   MPI                                   ~1%          ~51%
// On 2 ranks the ranks wait for each other in the halo exchanges of symgs and
// spmv (MPI_Send of A.halo.sendBuffer and the coarser levels' buffers, the
// MPI_Waitall of the receives into z, p, xc, ...) and in the reductions: half
// of the samples on this loaded machine, most of them in MPI progress whose
// stack perf could not unwind (in an earlier run 31% resolved to MPI_Send).
//  main:
//  1. data        >= 70% (1 rank): data.z first (the fine-level smoothing,
//                 58%+), data.Ap (~12%), data.r and data.p (~1% of their own;
//                 the CG recurrence may lift any of them inclusively);
//  2. A           ~ 20-45%: A.mgData (Axf ~12%, xc and rc), A.Ac (the coarser
//                 levels' matrices and mgData), A.halo (sendBuffer: packing,
//                 and the MPI_Send waits on 2 ranks); A's values only read;
//  3. x           the solution (waxpby ~1% of its own; inclusively lifted by
//                 the recurrence: alpha comes from z and Ap), b, xexact (setup);
//  data, A and x must all rank above times and testnorm_data.
// Must not rank high: times (only timer differences reach it: the solver's
// t1..t5, dot's time_allreduce, main's setup/validation/benchmark timers; ~0%
// explicit, listed with the derived variables), testnorm_data (values, mean,
// variance: a record of the residual norms, listed with the derived
// variables), normr, normr0, niters, totalIters, validIters, flops, err,
// t_setup, t_valid, t_bench, numberOfCgSets, refMaxIters, size, rank.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "SparseMatrix.hpp"
#include "testnorms.hpp"

static const int numberOfMgLevels = 4;

static double max_error(const Vector &x, const Vector &xexact, local_int_t n) {
  double e = 0.0;
  for (local_int_t i = 0; i < n; i++)
    e = std::fmax(e, std::fabs(x[i] - xexact[i]));
  double g = 0.0;
  MPI_Allreduce(&e, &g, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return g;
}

// Flops of one CG iteration with the V-cycle: the SpMV and dot products at
// the top, two SymGS sweeps pairs, an SpMV and the transfer per level.
static double flops_per_iteration(const SparseMatrix &A) {
  double f = 0.0;
  const SparseMatrix *L = &A;
  f += 2.0 * A.totalNumberOfNonzeros + 3.0 * 2.0 * A.totalNumberOfRows +
       2.0 * 3.0 * A.totalNumberOfRows;
  while (L) {
    if (L->mgData)
      f += 2.0 * 4.0 * L->totalNumberOfNonzeros + 2.0 * L->totalNumberOfNonzeros +
           2.0 * L->Ac->totalNumberOfRows;
    else
      f += 4.0 * L->totalNumberOfNonzeros;
    L = L->Ac;
  }
  return f;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, rank;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const local_int_t n = argc > 1 ? std::atoi(argv[1]) : 40;
  const int numberOfCgSets = argc > 2 ? std::atoi(argv[2]) : 3;
  const int refMaxIters = argc > 3 ? std::atoi(argv[3]) : 30;
  if (n % 8 != 0) {
    if (rank == 0) std::fprintf(stderr, "cgbench: n must be a multiple of 8\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  // timing slots filled here: [7] validation, [8] benchmark phase, [9] setup;
  // cg_solve adds [0]..[5]
  std::vector<double> times(10, 0.0);

  double t_setup = mytimer();
  SparseMatrix A;
  generate_geometry(size, rank, n, n, n, A.geom);
  Vector b, x, xexact;
  generate_problem(A, &b, &x, &xexact);
  SparseMatrix *cur = &A;
  for (int level = 1; level < numberOfMgLevels; level++) {
    generate_coarse_problem(*cur);
    cur = cur->Ac;
  }
  CGData data;
  init_cg_data(A, data);
  times[9] = mytimer() - t_setup;

  // Validation: solve to a tolerance and count the iterations.
  double t_valid = mytimer();
  int niters = 0;
  double normr = 0.0, normr0 = 0.0;
  zero_vector(x);
  cg_solve(A, data, b, x, 200, 1e-9, niters, normr, normr0, times, true);
  double err = max_error(x, xexact, A.localNumberOfRows);
  int validIters = niters;
  times[7] = mytimer() - t_valid;

  // Benchmark: a fixed number of iterations per solve, the residual norms
  // kept for the reproducibility check.
  TestNormData testnorm_data;
  testnorm_data.samples = numberOfCgSets;
  testnorm_data.values = new double[numberOfCgSets];
  double t_bench = mytimer();
  int totalIters = 0;
  for (int i = 0; i < numberOfCgSets; i++) {
    zero_vector(x);
    cg_solve(A, data, b, x, refMaxIters, 0.0, niters, normr, normr0, times, true);
    totalIters += niters;
    testnorm_data.values[i] = normr / normr0;
  }
  times[8] = mytimer() - t_bench;
  compute_test_norms(testnorm_data);

  double flops = flops_per_iteration(A) * (totalIters + validIters);
  if (rank == 0) {
    std::printf("cgbench: %d ranks, local %dx%dx%d, %lld rows, %lld nonzeros, %d levels\n", size,
                n, n, n, A.totalNumberOfRows, A.totalNumberOfNonzeros, numberOfMgLevels);
    std::printf("cgbench: validation %d iterations to 1e-9, max error %.3e\n", validIters, err);
    std::printf("cgbench: %d solves of %d iterations, residual mean %.10e variance %.3e (%s)\n",
                numberOfCgSets, refMaxIters, testnorm_data.mean, testnorm_data.variance,
                testnorm_data.pass ? "reproducible" : "NOT reproducible");
    std::printf("cgbench: setup %.3f s, validation %.3f s, benchmark %.3f s\n", times[9],
                times[7], times[8]);
    std::printf("cgbench: cg %.3f s: dot %.3f waxpby %.3f spmv %.3f allreduce %.3f mg %.3f; "
                "%.2f GFlop/s\n",
                times[0], times[1], times[2], times[3], times[4], times[5],
                1e-9 * flops / times[0]);
  }
  delete[] testnorm_data.values;
  delete_matrix(A);
  MPI_Finalize();
  return 0;
}
