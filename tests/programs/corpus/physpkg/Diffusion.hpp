// Diffusion.hpp: implicit (backward Euler) heat conduction,
//   rho cv (T' - T) / dt = div(kappa(T) grad T'),  kappa = k0 sqrt(T),
// with the coefficients frozen at the old temperature; the symmetric
// positive definite system is solved matrix-free by conjugate gradients.
#pragma once

#include <vector>

#include "Package.hpp"

namespace pp {

class Diffusion : public Package {
 public:
  struct Params {
    double k0 = 0.13;      // conductivity scale
    double rtol = 1e-8;    // relative residual of the CG
    int max_iterations = 2000;
  };

  Diffusion(const Mesh &mesh, const Params &params);
  ~Diffusion() override;  // prints the solver's totals
  const char *name() const override { return "diffusion"; }
  void advance(State &s, double dt) override;

 private:
  void assemble(const State &s, double dt);
  void apply(const std::vector<double> &x, std::vector<double> &y) const;
  int solve(std::vector<double> &x);

  const Mesh &mesh_;
  Params params_;
  std::vector<double> kappa_;     // cell conductivities
  std::vector<double> kx_, ky_;   // east and north face coefficients / dx^2
  std::vector<double> diag_;      // rho cv / dt
  std::vector<double> b_;         // right-hand side
  std::vector<double> r_, p_, q_; // CG residual, direction, A p
  long iterations_ = 0;
  int solves_ = 0;
  int max_iterations_seen_ = 0;
};

}  // namespace pp
