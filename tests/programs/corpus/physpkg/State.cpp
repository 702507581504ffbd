// State.cpp: allocation and the initial condition.
#include "State.hpp"

namespace pp {

State::State(std::size_t ncells, int nspecies)
    : rho(ncells, 1.0),
      e(ncells, 0.0),
      T(ncells, 1.0),
      p(ncells, 0.0),
      cs(ncells, 0.0),
      u(ncells, 0.0),
      v(ncells, 0.0),
      Y(static_cast<std::size_t>(nspecies), std::vector<double>(ncells, 0.0)) {}

namespace {
double bump(double x, double y, double x0, double y0, double w) {
  const double r2 = (x - x0) * (x - x0) + (y - y0) * (y - y0);
  return std::exp(-r2 / (w * w));
}
}  // namespace

void initialize(State &s, const Mesh &mesh) {
  const double pi = std::acos(-1.0);
  for (int j = 0; j < mesh.ny(); ++j) {
    for (int i = 0; i < mesh.nx(); ++i) {
      const std::size_t c = mesh.idx(i, j);
      const double x = mesh.x(i), y = mesh.y(j);
      // cellular flow from the stream function sin(2 pi x) sin(2 pi y) / 2 pi
      s.u[c] = std::sin(2 * pi * x) * std::cos(2 * pi * y);
      s.v[c] = -std::cos(2 * pi * x) * std::sin(2 * pi * y);
      s.rho[c] = 1.0 + 0.25 * bump(x, y, 0.5, 0.5, 0.2);
      // fuel on the left, oxidizer on the right, a diffuse layer between
      const double layer = 0.5 * (1.0 + std::tanh((x - 0.5) / 0.06));
      s.Y[kFuel][c] = 0.40 * (1.0 - layer) + 0.03;
      s.Y[kOxidizer][c] = 0.60 * layer + 0.03;
      s.Y[kInert][c] = 0.30;
      s.Y[kProduct][c] = 1.0 - s.Y[kFuel][c] - s.Y[kOxidizer][c] - s.Y[kInert][c];
      const double T = 1.0 + 2.2 * bump(x, y, 0.5, 0.3, 0.06) +
                       2.2 * bump(x, y, 0.5, 0.72, 0.05);
      s.T[c] = T;
      s.e[c] = gas::energy(T);
      double R = 0.0;
      for (int k = 0; k < kNumSpecies; ++k)
        R += s.Y[static_cast<std::size_t>(k)][c] * gas::kR[k];
      s.p[c] = s.rho[c] * R * T;
      s.cs[c] = std::sqrt(gas::kGamma * s.p[c] / s.rho[c]);
    }
  }
}

}  // namespace pp
