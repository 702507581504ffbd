// Diagnostics.cpp
#include "Diagnostics.hpp"

#include <algorithm>
#include <cstdio>

namespace pp {

void Diagnostics::record(const State &s, const Mesh &mesh, double t, double step_dt) {
  double m = 0.0, E = 0.0, f = 0.0, tmax = 0.0;
  const std::size_t n = mesh.cells();
  for (std::size_t c = 0; c < n; ++c) {
    m += s.rho[c];
    E += s.rho[c] * s.e[c];
    f += s.rho[c] * s.Y[kFuel][c];
    tmax = std::max(tmax, s.T[c]);
  }
  const double area = mesh.cellArea();
  time.push_back(t);
  dt.push_back(step_dt);
  mass.push_back(m * area);
  energy.push_back(E * area);
  fuel.push_back(f * area);
  max_T.push_back(tmax);
}

void Diagnostics::print(int every) const {
  std::printf("%5s %10s %10s %14s %14s %12s %9s\n", "step", "time", "dt", "mass",
              "energy", "fuel", "max T");
  const std::size_t steps = time.size();
  for (std::size_t k = 0; k < steps; ++k) {
    if ((k + 1) % static_cast<std::size_t>(every) != 0 && k + 1 != steps)
      continue;
    std::printf("%5zu %10.6f %10.3e %14.10f %14.10f %12.8f %9.5f\n", k + 1, time[k],
                dt[k], mass[k], energy[k], fuel[k], max_T[k]);
  }
  if (steps > 0) {
    const double drift = (mass.back() - mass.front()) / mass.front();
    std::printf("relative mass drift %.2e, energy gain %.6f, fuel burned %.6f\n",
                drift, energy.back() - energy.front(), fuel.front() - fuel.back());
  }
}

}  // namespace pp
