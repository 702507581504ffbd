// FlowSolver.cpp - the kernels of the projection method, each a lambda
// over the interior that captures the views it looked up by name.
#include "FlowSolver.hpp"

#include <algorithm>
#include <cmath>

#include "Parallel.hpp"

namespace lg {

FlowSolver::FlowSolver(FieldRegistry &reg, TimerRegistry &timers, const FlowParams &p)
    : reg_(reg), timers_(timers), p_(p), h_(1.0 / p.nx),
      cg_(p.nx, p.ny, 1.0 / p.nx, p.cg_tol, p.cg_max_iter) {}

void FlowSolver::initialize() {
  for (const char *name : {"u", "v", "ustar", "vstar", "p", "div"})
    reg_.add(name);
  // The tracers: blobs in the four quarters.
  const double h = h_;
  for (int s = 0; s < p_.ntracers; ++s) {
    const std::string name = "c" + std::to_string(s);
    auto c = reg_.add(name);
    reg_.add(name + "_new");
    const double x0 = s % 2 ? 0.7 : 0.3, y0 = s / 2 % 2 ? 0.7 : 0.3;
    parallel_for("init.tracer", MDRange{1, p_.nx + 1, 1, p_.ny + 1}, [=](int i, int j) {
      const double x = (i - 0.5) * h - x0, y = (j - 0.5) * h - y0;
      c(i, j) = std::exp(-(x * x + y * y) / 0.01);
    });
    apply_scalar_bc(name);
  }
  apply_velocity_bc("u", "v");
}

// No-slip walls, the lid (j = ny + 1) moving with velocity lid in x:
// ghost values mirror the interior so the wall value is the average.
void FlowSolver::apply_velocity_bc(const std::string &un, const std::string &vn) {
  auto u = reg_.get(un);
  auto v = reg_.get(vn);
  const int nx = p_.nx, ny = p_.ny;
  const double lid = p_.lid;
  for (int i = 0; i < nx + 2; ++i) {
    u(i, 0) = -u(i, 1);
    v(i, 0) = -v(i, 1);
    u(i, ny + 1) = 2.0 * lid - u(i, ny);
    v(i, ny + 1) = -v(i, ny);
  }
  for (int j = 0; j < ny + 2; ++j) {
    u(0, j) = -u(1, j);
    v(0, j) = -v(1, j);
    u(nx + 1, j) = -u(nx, j);
    v(nx + 1, j) = -v(nx, j);
  }
}

void FlowSolver::apply_scalar_bc(const std::string &name) {
  auto s = reg_.get(name);
  const int nx = p_.nx, ny = p_.ny;
  for (int i = 0; i < nx + 2; ++i) {
    s(i, 0) = s(i, 1);
    s(i, ny + 1) = s(i, ny);
  }
  for (int j = 0; j < ny + 2; ++j) {
    s(0, j) = s(1, j);
    s(nx + 1, j) = s(nx, j);
  }
}

// ustar = u + dt (-(u.grad) u + nu lap u), first-order upwind advection.
void FlowSolver::predict(double dt) {
  ScopedTimer t(timers_, "predict");
  auto u = reg_.get("u");
  auto v = reg_.get("v");
  auto ustar = reg_.get("ustar");
  auto vstar = reg_.get("vstar");
  const double ih = 1.0 / h_, nu_ih2 = p_.nu / (h_ * h_);
  parallel_for("predict", MDRange{1, p_.nx + 1, 1, p_.ny + 1}, [=](int i, int j) {
    const double uc = u(i, j), vc = v(i, j);
    const double dudx = uc > 0 ? u(i, j) - u(i - 1, j) : u(i + 1, j) - u(i, j);
    const double dudy = vc > 0 ? u(i, j) - u(i, j - 1) : u(i, j + 1) - u(i, j);
    const double dvdx = uc > 0 ? v(i, j) - v(i - 1, j) : v(i + 1, j) - v(i, j);
    const double dvdy = vc > 0 ? v(i, j) - v(i, j - 1) : v(i, j + 1) - v(i, j);
    const double lapu = u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - 4.0 * uc;
    const double lapv = v(i - 1, j) + v(i + 1, j) + v(i, j - 1) + v(i, j + 1) - 4.0 * vc;
    ustar(i, j) = uc + dt * (-(uc * dudx + vc * dudy) * ih + nu_ih2 * lapu);
    vstar(i, j) = vc + dt * (-(uc * dvdx + vc * dvdy) * ih + nu_ih2 * lapv);
  });
  apply_velocity_bc("ustar", "vstar");
}

// div = -div(ustar) / dt: the right-hand side of -lap p = -div / dt.
void FlowSolver::divergence(double dt) {
  ScopedTimer t(timers_, "divergence");
  auto ustar = reg_.get("ustar");
  auto vstar = reg_.get("vstar");
  auto div = reg_.get("div");
  const double f = 1.0 / (2.0 * h_ * dt);
  parallel_for("divergence", MDRange{1, p_.nx + 1, 1, p_.ny + 1}, [=](int i, int j) {
    div(i, j) = -f * (ustar(i + 1, j) - ustar(i - 1, j) + vstar(i, j + 1) - vstar(i, j - 1));
  });
}

int FlowSolver::pressure_solve() {
  ScopedTimer t(timers_, "pressure");
  return cg_.solve(reg_.get("p"), reg_.get("div"), residual_history_);
}

// u = ustar - dt grad p.
void FlowSolver::project(double dt) {
  ScopedTimer t(timers_, "project");
  auto u = reg_.get("u");
  auto v = reg_.get("v");
  auto ustar = reg_.get("ustar");
  auto vstar = reg_.get("vstar");
  auto p = reg_.get("p");
  const double f = dt / (2.0 * h_);
  parallel_for("project", MDRange{1, p_.nx + 1, 1, p_.ny + 1}, [=](int i, int j) {
    u(i, j) = ustar(i, j) - f * (p(i + 1, j) - p(i - 1, j));
    v(i, j) = vstar(i, j) - f * (p(i, j + 1) - p(i, j - 1));
  });
  apply_velocity_bc("u", "v");
}

// cnew = c + dt (-(u.grad) c + kappa lap c), then c and cnew are swapped.
void FlowSolver::advect_tracer(const std::string &name, double dt) {
  ScopedTimer t(timers_, "tracer");
  auto u = reg_.get("u");
  auto v = reg_.get("v");
  auto c = reg_.get(name);
  auto cnew = reg_.get(name + "_new");
  const double ih = 1.0 / h_, k_ih2 = p_.kappa / (h_ * h_);
  parallel_for("tracer", MDRange{1, p_.nx + 1, 1, p_.ny + 1}, [&](int i, int j) {
    const double uc = u(i, j), vc = v(i, j);
    const double dcdx = uc > 0 ? c(i, j) - c(i - 1, j) : c(i + 1, j) - c(i, j);
    const double dcdy = vc > 0 ? c(i, j) - c(i, j - 1) : c(i, j + 1) - c(i, j);
    const double lapc = c(i - 1, j) + c(i + 1, j) + c(i, j - 1) + c(i, j + 1) - 4.0 * c(i, j);
    cnew(i, j) = c(i, j) + dt * (-(uc * dcdx + vc * dcdy) * ih + k_ih2 * lapc);
  });
  reg_.swap(name, name + "_new");
  apply_scalar_bc(name);
}

double FlowSolver::stable_dt() const {
  auto u = reg_.get("u");
  auto v = reg_.get("v");
  double umax = 0.0;
  for (std::size_t k = 0; k < u.size(); ++k)
    umax = std::max(umax, std::fabs(u[k]) + std::fabs(v[k]));
  const double adv = p_.cfl * h_ / std::max(umax, 1e-12);
  const double diff = 0.2 * h_ * h_ / std::max(p_.nu, p_.kappa);
  return std::min(adv, diff);
}

int FlowSolver::step(double dt) {
  ScopedTimer t(timers_, "step");
  predict(dt);
  divergence(dt);
  const int iters = pressure_solve();
  project(dt);
  for (int s = 0; s < p_.ntracers; ++s)
    advect_tracer("c" + std::to_string(s), dt);
  ++steps_done_;
  return iters;
}

} // namespace lg
