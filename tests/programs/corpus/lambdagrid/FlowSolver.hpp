// FlowSolver.hpp - a fractional-step (projection) solver for the 2-D
// incompressible Navier-Stokes equations in a lid-driven cavity, with a
// passive tracer: every step predicts the velocity (explicit upwind
// advection and diffusion), solves the pressure Poisson equation with CG
// and projects the velocity onto divergence-free fields. The fields live in
// a FieldRegistry and are looked up by name in every kernel.
#pragma once

#include <string>
#include <vector>

#include "CgSolver.hpp"
#include "FieldRegistry.hpp"
#include "Timer.hpp"

namespace lg {

struct FlowParams {
  int nx = 128, ny = 128;
  double nu = 0.01;      // kinematic viscosity
  double kappa = 0.002;  // tracer diffusivity
  double lid = 1.0;      // lid velocity
  double cfl = 0.4;
  double cg_tol = 1e-3;
  int cg_max_iter = 2000;
  int ntracers = 4;      // passive scalars c0, c1, ...
};

class FlowSolver {
public:
  FlowSolver(FieldRegistry &reg, TimerRegistry &timers, const FlowParams &p);

  // Registers the fields and sets the initial state.
  void initialize();
  // Advances one step of size dt; returns the CG iterations.
  int step(double dt);
  // The largest stable step for the current velocity.
  double stable_dt() const;

  const std::vector<double> &residual_history() const { return residual_history_; }
  long total_cg_iterations() const { return cg_.total_iterations(); }
  int steps_done() const { return steps_done_; }

private:
  void apply_velocity_bc(const std::string &un, const std::string &vn);
  void apply_scalar_bc(const std::string &name);
  void predict(double dt);
  void divergence(double dt);
  int pressure_solve();
  void project(double dt);
  void advect_tracer(const std::string &name, double dt);

  FieldRegistry &reg_;
  TimerRegistry &timers_;
  FlowParams p_;
  double h_;
  CgSolver cg_;
  std::vector<double> residual_history_;
  int steps_done_ = 0;
};

} // namespace lg
