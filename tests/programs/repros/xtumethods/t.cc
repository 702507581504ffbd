// Every step calls two methods of mesh.cc, which write the mesh's fields,
// then counts the step and advances the time in public members: the
// counters are computed on their own lines only (expected: m high,
// m.steps_done and m.time near 0 in explicit blame).
#include <cstdio>
#include <cstdlib>

#include "mesh.h"

int main(int argc, char **argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 1500;
  Mesh m(100000);
  for (int s = 0; s < steps; s++) {
    m.computeFlux();
    m.update(1e-3);
    m.steps_done++;
    m.time += 1e-3;
  }
  std::printf("%ld steps, t = %.3f, |u| = %.6f\n", m.steps_done, m.time, m.norm());
  return 0;
}
