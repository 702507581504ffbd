// Problem.hpp: unsteady convection-diffusion of a scalar in the unit
// square, u_t + a . grad u = nu lap u + f, by backward Euler in time and
// finite differences in space (centred diffusion, first-order upwind
// convection): every step solves (I/dt + K) u_new = u/dt + f, a
// nonsymmetric system.
#pragma once

#include <string>
#include <vector>

#include "CsrMatrix.hpp"

namespace iv {

struct Options {
  int n = 160;          // grid points per direction
  int steps = 12;       // time steps
  int restart = 30;     // GMRES(m)
  int max_iterations = 2000;
  double dt = 0.5;
  double nu = 2.0e-3;   // diffusivity
  double speed = 1.0;   // rotation speed of the flow
  double rtol = 1.0e-9;
  std::string precond = "ilu0";
};

Options parseOptions(int argc, char** argv);

class ConvectionDiffusion {
 public:
  explicit ConvectionDiffusion(const Options& opt);

  int unknowns() const { return n_ * n_; }
  double spacing() const { return h_; }
  // The system matrix I/dt + K.
  CsrMatrix assemble() const;
  // The heat source f: two Gaussian spots.
  Vector source() const;
  // b = u/dt + f
  void rightHandSide(const Vector& u, const Vector& f, Vector& b) const;

 private:
  // The rotating flow a(x, y) at a grid point.
  void velocity(int i, int j, double& ax, double& ay) const;

  int n_;
  double h_, dt_, nu_, speed_;
};

}  // namespace iv
