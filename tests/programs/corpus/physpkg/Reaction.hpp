// Reaction.hpp: one-step Arrhenius kinetics, fuel + nu oxidizer -> product,
// integrated cell by cell over dt in substeps, each linearly implicit in
// the fuel (the source is stiff in the hot cells).
#pragma once

#include "Package.hpp"

namespace pp {

class Reaction : public Package {
 public:
  struct Params {
    double A = 2.0e4;        // pre-exponential factor
    double Ta = 9.0;         // activation temperature
    double order_rho = 1.2;  // density exponent of the rate
    double order_ox = 0.6;   // oxidizer exponent of the rate
    double nu = 1.5;         // oxidizer mass per fuel mass
    double heat = 2.0;       // heat release per fuel mass
    int substeps = 2;
  };

  Reaction(const Mesh &mesh, const Params &params);
  const char *name() const override { return "reaction"; }
  void advance(State &s, double dt) override;

 private:
  const Mesh &mesh_;
  Params params_;
};

}  // namespace pp
