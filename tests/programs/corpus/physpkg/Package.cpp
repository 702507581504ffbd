// Package.cpp: the base class's key function and the package factory.
#include "Package.hpp"

#include <stdexcept>

#include "Advection.hpp"
#include "Diffusion.hpp"
#include "Eos.hpp"
#include "Reaction.hpp"

namespace pp {

Package::~Package() = default;

std::unique_ptr<Package> make_package(const std::string &name, const Mesh &mesh) {
  if (name == "advection")
    return std::make_unique<Advection>(mesh);
  if (name == "diffusion")
    return std::make_unique<Diffusion>(mesh, Diffusion::Params{});
  if (name == "reaction")
    return std::make_unique<Reaction>(mesh, Reaction::Params{});
  if (name == "eos")
    return std::make_unique<Eos>(mesh);
  throw std::invalid_argument("unknown package: " + name);
}

}  // namespace pp
