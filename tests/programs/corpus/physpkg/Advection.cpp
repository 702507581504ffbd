// Advection.cpp
#include "Advection.hpp"

#include <cmath>

namespace pp {

namespace {
inline double minmod(double a, double b) {
  if (a * b <= 0.0)
    return 0.0;
  return std::fabs(a) < std::fabs(b) ? a : b;
}

// value at the face between cells l and r, upwinded by the face speed w
inline double upwindFace(double w, double ll, double l, double r, double rr) {
  if (w >= 0.0)
    return l + 0.5 * minmod(l - ll, r - l);
  return r - 0.5 * minmod(r - l, rr - r);
}

// rho, rho e, rho Y_k
constexpr int kConserved = 2 + kNumSpecies;
}  // namespace

Advection::Advection(const Mesh &mesh)
    : mesh_(mesh),
      uf_(mesh.cells()),
      vf_(mesh.cells()),
      fx_(mesh.cells()),
      fy_(mesh.cells()),
      u0_(kConserved, std::vector<double>(mesh.cells())),
      u1_(kConserved, std::vector<double>(mesh.cells())) {}

void Advection::faceVelocities(const State &s) {
  for (int j = 0; j < mesh_.ny(); ++j) {
    const int jn = mesh_.north(j);
    for (int i = 0; i < mesh_.nx(); ++i) {
      const std::size_t c = mesh_.idx(i, j);
      uf_[c] = 0.5 * (s.u[c] + s.u[mesh_.idx(mesh_.east(i), j)]);
      vf_[c] = 0.5 * (s.v[c] + s.v[mesh_.idx(i, jn)]);
    }
  }
}

void Advection::computeFluxes(const std::vector<double> &q) {
  for (int j = 0; j < mesh_.ny(); ++j) {
    const int js = mesh_.south(j), jn = mesh_.north(j), jnn = mesh_.north(jn);
    for (int i = 0; i < mesh_.nx(); ++i) {
      const int iw = mesh_.west(i), ie = mesh_.east(i), iee = mesh_.east(ie);
      const std::size_t c = mesh_.idx(i, j);
      fx_[c] = uf_[c] * upwindFace(uf_[c], q[mesh_.idx(iw, j)], q[c],
                                   q[mesh_.idx(ie, j)], q[mesh_.idx(iee, j)]);
      fy_[c] = vf_[c] * upwindFace(vf_[c], q[mesh_.idx(i, js)], q[c],
                                   q[mesh_.idx(i, jn)], q[mesh_.idx(i, jnn)]);
    }
  }
}

void Advection::update(const std::vector<double> &q, const std::vector<double> &base,
                       double a, double b, double lambda, std::vector<double> &out) {
  for (int j = 0; j < mesh_.ny(); ++j) {
    const int js = mesh_.south(j);
    for (int i = 0; i < mesh_.nx(); ++i) {
      const std::size_t c = mesh_.idx(i, j);
      const double div = fx_[c] - fx_[mesh_.idx(mesh_.west(i), j)] + fy_[c] -
                         fy_[mesh_.idx(i, js)];
      out[c] = a * base[c] + b * (q[c] - lambda * div);
    }
  }
}

void Advection::advance(State &s, double dt) {
  const double lambda = dt / mesh_.dx();
  const std::size_t n = mesh_.cells();
  faceVelocities(s);

  for (std::size_t c = 0; c < n; ++c) {
    const double rho = s.rho[c];
    u0_[0][c] = rho;
    u0_[1][c] = rho * s.e[c];
    for (int k = 0; k < kNumSpecies; ++k)
      u0_[static_cast<std::size_t>(2 + k)][c] = rho * s.Y[static_cast<std::size_t>(k)][c];
  }
  // SSP-RK2: u1 = u0 + dt L(u0);  u = (u0 + u1 + dt L(u1)) / 2
  for (std::size_t m = 0; m < u0_.size(); ++m) {
    computeFluxes(u0_[m]);
    update(u0_[m], u0_[m], 0.0, 1.0, lambda, u1_[m]);
    computeFluxes(u1_[m]);
    update(u1_[m], u0_[m], 0.5, 0.5, lambda, u0_[m]);
  }
  for (std::size_t c = 0; c < n; ++c) {
    const double rho = u0_[0][c];
    s.rho[c] = rho;
    s.e[c] = u0_[1][c] / rho;
    for (int k = 0; k < kNumSpecies; ++k)
      s.Y[static_cast<std::size_t>(k)][c] = u0_[static_cast<std::size_t>(2 + k)][c] / rho;
  }
}

}  // namespace pp
