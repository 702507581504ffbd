// crosstu: kernels of a C++ library built without blame cc (no summaries)
// take `const std::vector<double>&` for what they only read. The library
// heuristic took every pointer or reference argument the caller does not
// declare const for written, so x was blamed for the axpy loop that only
// reads it (99%). The mangled names say which parameters are references
// to const.
// Expected: y (written by axpy, ~all of the run) first, x (filled once,
// then only read) low.
#include <cstdio>
#include <cstdlib>
#include <vector>

void axpy(double a, const std::vector<double> &x, std::vector<double> &y);
double dot(const std::vector<double> &u, const std::vector<double> &v);

int main(int argc, char **argv) {
  std::size_t n = argc > 1 ? std::atol(argv[1]) : 200000;
  int iters = argc > 2 ? std::atoi(argv[2]) : 3000;
  std::vector<double> x(n), y(n, 1.0);
  for (std::size_t i = 0; i < n; i++) x[i] = 1.0 / (1.0 + i);
  double norm = 0;
  for (int it = 0; it < iters; it++) {
    axpy(1e-6, x, y);
    if (it % 100 == 0) norm = dot(y, y);
  }
  std::printf("crosstu: %g\n", norm);
  return 0;
}
