// cgbench: mean and variance of the residual norms of the benchmark solves.
// A reproducible solver gives the same norm every time.
#include "testnorms.hpp"

int compute_test_norms(TestNormData &testnorm_data) {
  double mean = 0.0;
  const int n = testnorm_data.samples;
  for (int i = 0; i < n; i++)
    mean += testnorm_data.values[i];
  mean /= (double)n;
  double variance = 0.0;
  for (int i = 0; i < n; i++) {
    double d = testnorm_data.values[i] - mean;
    variance += d * d;
  }
  variance /= (double)n;
  testnorm_data.mean = mean;
  testnorm_data.variance = variance;
  testnorm_data.pass = variance < 1e-6;
  return 0;
}
