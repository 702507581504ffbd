// Advection.hpp: conservative transport of density, energy and species by
// the (frozen) velocity field: upwind fluxes of minmod-limited linear
// reconstructions, two-stage SSP Runge-Kutta in time, on the conserved
// quantities rho, rho e and rho Y_k.
#pragma once

#include <vector>

#include "Package.hpp"

namespace pp {

class Advection : public Package {
 public:
  explicit Advection(const Mesh &mesh);
  const char *name() const override { return "advection"; }
  void advance(State &s, double dt) override;

 private:
  void faceVelocities(const State &s);
  void computeFluxes(const std::vector<double> &q);
  // out = a * base + b * (q - lambda div F(q)), F from fx_, fy_
  void update(const std::vector<double> &q, const std::vector<double> &base,
              double a, double b, double lambda, std::vector<double> &out);

  const Mesh &mesh_;
  std::vector<double> uf_, vf_;            // east and north face velocities
  std::vector<double> fx_, fy_;            // east and north face fluxes
  std::vector<std::vector<double>> u0_;    // conserved quantities at t
  std::vector<std::vector<double>> u1_;    // after the first stage
};

}  // namespace pp
