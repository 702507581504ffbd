// Reaction.cpp
#include "Reaction.hpp"

#include <algorithm>
#include <cmath>

namespace pp {

Reaction::Reaction(const Mesh &mesh, const Params &params)
    : mesh_(mesh), params_(params) {}

void Reaction::advance(State &s, double dt) {
  const std::size_t n = mesh_.cells();
  const double h = dt / params_.substeps;
  std::vector<double> &yf_field = s.Y[kFuel];
  std::vector<double> &yo_field = s.Y[kOxidizer];
  std::vector<double> &yp_field = s.Y[kProduct];
  for (std::size_t c = 0; c < n; ++c) {
    const double rho_factor = std::pow(s.rho[c], params_.order_rho - 1.0);
    double yf = yf_field[c], yo = yo_field[c], yp = yp_field[c];
    double e = s.e[c];
    double T = s.T[c];  // consistent with e: the Eos package ran last
    for (int k = 0; k < params_.substeps; ++k) {
      const double rate = params_.A * rho_factor *
                          std::pow(std::max(yo, 0.0), params_.order_ox) *
                          std::exp(-params_.Ta / T);
      // d yf / dt = -rate yf, implicit in yf; limited by the oxidizer left
      double burned = yf - yf / (1.0 + h * rate);
      burned = std::min(burned, std::max(yo, 0.0) / params_.nu);
      yf -= burned;
      yo -= params_.nu * burned;
      yp += (1.0 + params_.nu) * burned;
      const double q = params_.heat * burned;
      e += q;
      T += q / gas::cv(T);  // linearized; e(T) = e is restored by the Eos
    }
    s.T[c] = T;
    yf_field[c] = yf;
    yo_field[c] = yo;
    yp_field[c] = yp;
    s.e[c] = e;
  }
}

}  // namespace pp
