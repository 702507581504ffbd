// Package.hpp: a physics package advances part of the state by dt.
#pragma once

#include <memory>
#include <string>

#include "Mesh.hpp"
#include "State.hpp"

namespace pp {

class Package {
 public:
  virtual ~Package();
  virtual const char *name() const = 0;
  virtual void advance(State &s, double dt) = 0;
};

// "advection", "diffusion", "reaction" or "eos"; throws on anything else
std::unique_ptr<Package> make_package(const std::string &name, const Mesh &mesh);

}  // namespace pp
