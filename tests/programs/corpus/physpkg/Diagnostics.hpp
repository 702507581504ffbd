// Diagnostics.hpp: integral quantities of every step, kept for the summary.
#pragma once

#include <vector>

#include "Mesh.hpp"
#include "State.hpp"

namespace pp {

struct Diagnostics {
  std::vector<double> time;
  std::vector<double> dt;
  std::vector<double> mass;       // integral of rho
  std::vector<double> energy;     // integral of rho e
  std::vector<double> fuel;       // integral of rho Y_fuel
  std::vector<double> max_T;

  void record(const State &s, const Mesh &mesh, double t, double step_dt);
  void print(int every) const;
};

}  // namespace pp
