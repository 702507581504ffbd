// State.hpp: the cell-centred fields every package reads and updates, and
// the gas model they share.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "Mesh.hpp"

namespace pp {

// species: fuel + nu oxidizer -> (1 + nu) product, in an inert diluent
enum Species { kFuel = 0, kOxidizer = 1, kProduct = 2, kInert = 3, kNumSpecies = 4 };

namespace gas {
constexpr double kGamma = 1.4;
// specific gas constants of fuel, oxidizer, product, diluent
constexpr double kR[kNumSpecies] = {1.10, 0.85, 0.70, 0.95};
// heat capacity cv(T) = kCv0 + kCv1 sqrt(T), so e(T) = kCv0 T + 2/3 kCv1 T^1.5
constexpr double kCv0 = 0.6;
constexpr double kCv1 = 0.4;

inline double cv(double T) { return kCv0 + kCv1 * std::sqrt(T); }
inline double energy(double T) { return T * (kCv0 + (2.0 / 3.0) * kCv1 * std::sqrt(T)); }

// the temperature of specific energy e, by Newton's method from a guess
inline double temperature(double e, double guess) {
  double T = guess;
  for (int it = 0; it < 30; ++it) {
    const double sT = std::sqrt(T);
    const double dT = (T * (kCv0 + (2.0 / 3.0) * kCv1 * sT) - e) / (kCv0 + kCv1 * sT);
    T -= dT;
    if (std::fabs(dT) < 1e-12 * T)
      break;
  }
  return T;
}
}  // namespace gas

struct State {
  State(std::size_t ncells, int nspecies);

  std::vector<double> rho;  // density
  std::vector<double> e;    // specific internal energy
  std::vector<double> T;    // temperature
  std::vector<double> p;    // pressure
  std::vector<double> cs;   // sound speed
  std::vector<double> u;    // velocity, x
  std::vector<double> v;    // velocity, y
  std::vector<std::vector<double>> Y;  // mass fractions, Y[species][cell]
};

// Initial condition: a rotating flow carrying a fuel/oxidizer layer with
// two ignition kernels.
void initialize(State &s, const Mesh &mesh);

}  // namespace pp
