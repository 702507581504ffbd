// Eos.cpp
#include "Eos.hpp"

#include <cmath>

namespace pp {

void Eos::advance(State &s, double /*dt*/) {
  const std::size_t n = mesh_.cells();
  for (std::size_t c = 0; c < n; ++c) {
    double R = 0.0;
    for (int k = 0; k < kNumSpecies; ++k)
      R += s.Y[static_cast<std::size_t>(k)][c] * gas::kR[k];
    const double T = gas::temperature(s.e[c], s.T[c]);
    s.T[c] = T;
    s.p[c] = s.rho[c] * R * T;
    s.cs[c] = std::sqrt(gas::kGamma * s.p[c] / s.rho[c]);
  }
}

}  // namespace pp
