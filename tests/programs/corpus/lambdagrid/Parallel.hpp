// Parallel.hpp - Kokkos-style execution patterns: parallel_for and
// parallel_reduce over a 2-D index range, taking the kernel as a lambda
// (or any callable). This back end runs them serially; every launch is
// counted by name in the kernel registry, as a profiling hook would.
#pragma once

#include <string>
#include <unordered_map>

namespace lg {

struct MDRange {
  int i0, i1; // [i0, i1)
  int j0, j1; // [j0, j1)
};

// Launch counts by kernel name (the profiling interface's bookkeeping).
std::unordered_map<std::string, long> &kernel_launches();

template <class F>
void parallel_for(const std::string &name, const MDRange &range, const F &f) {
  ++kernel_launches()[name];
  for (int i = range.i0; i < range.i1; ++i)
    for (int j = range.j0; j < range.j1; ++j)
      f(i, j);
}

// f(i, j, acc) adds its contribution to acc; the sum goes to result.
template <class F>
void parallel_reduce(const std::string &name, const MDRange &range, const F &f,
                     double &result) {
  ++kernel_launches()[name];
  double acc = 0.0;
  for (int i = range.i0; i < range.i1; ++i)
    for (int j = range.j0; j < range.j1; ++j)
      f(i, j, acc);
  result = acc;
}

} // namespace lg
