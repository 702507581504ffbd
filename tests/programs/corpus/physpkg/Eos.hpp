// Eos.hpp: temperature, pressure and sound speed from density, energy and
// composition: a mixture of ideal gases with the caloric law of State.hpp,
// inverted by Newton's method from the previous temperature.
#pragma once

#include "Package.hpp"

namespace pp {

class Eos : public Package {
 public:
  explicit Eos(const Mesh &mesh) : mesh_(mesh) {}
  const char *name() const override { return "eos"; }
  void advance(State &s, double dt) override;

 private:
  const Mesh &mesh_;
};

}  // namespace pp
