// cgbench: statistics of the relative residual norms of repeated solves.
#ifndef CGBENCH_TESTNORMS_HPP
#define CGBENCH_TESTNORMS_HPP

struct TestNormData {
  double *values;   // relative residual of each solve
  double mean;
  double variance;
  int samples;
  int pass;         // the variance is small enough
};

int compute_test_norms(TestNormData &testnorm_data);

#endif
