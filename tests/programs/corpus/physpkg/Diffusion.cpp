// Diffusion.cpp
#include "Diffusion.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace pp {

namespace {
inline double dot(const std::vector<double> &a, const std::vector<double> &b) {
  double s = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k)
    s += a[k] * b[k];
  return s;
}
}  // namespace

Diffusion::Diffusion(const Mesh &mesh, const Params &params)
    : mesh_(mesh),
      params_(params),
      kappa_(mesh.cells()),
      kx_(mesh.cells()),
      ky_(mesh.cells()),
      diag_(mesh.cells()),
      b_(mesh.cells()),
      r_(mesh.cells()),
      p_(mesh.cells()),
      q_(mesh.cells()) {}

Diffusion::~Diffusion() {
  if (solves_ > 0)
    std::printf("diffusion: %d CG solves, %ld iterations (mean %.1f, max %d)\n",
                solves_, iterations_, static_cast<double>(iterations_) / solves_,
                max_iterations_seen_);
}

void Diffusion::assemble(const State &s, double dt) {
  const std::size_t n = mesh_.cells();
  const double inv_dx2 = 1.0 / (mesh_.dx() * mesh_.dx());
  for (std::size_t c = 0; c < n; ++c) {
    const double T = s.T[c];
    diag_[c] = s.rho[c] * gas::cv(T) / dt;
    b_[c] = diag_[c] * T;
    kappa_[c] = params_.k0 * std::sqrt(T);
  }
  for (int j = 0; j < mesh_.ny(); ++j) {
    const int jn = mesh_.north(j);
    for (int i = 0; i < mesh_.nx(); ++i) {
      const std::size_t c = mesh_.idx(i, j);
      kx_[c] = 0.5 * (kappa_[c] + kappa_[mesh_.idx(mesh_.east(i), j)]) * inv_dx2;
      ky_[c] = 0.5 * (kappa_[c] + kappa_[mesh_.idx(i, jn)]) * inv_dx2;
    }
  }
}

// y = A x: the diagonal plus the five-point conduction operator
void Diffusion::apply(const std::vector<double> &x, std::vector<double> &y) const {
  for (int j = 0; j < mesh_.ny(); ++j) {
    const int js = mesh_.south(j), jn = mesh_.north(j);
    for (int i = 0; i < mesh_.nx(); ++i) {
      const std::size_t c = mesh_.idx(i, j);
      const std::size_t w = mesh_.idx(mesh_.west(i), j);
      const std::size_t e = mesh_.idx(mesh_.east(i), j);
      const std::size_t s = mesh_.idx(i, js);
      const std::size_t nn = mesh_.idx(i, jn);
      const double xc = x[c];
      y[c] = diag_[c] * xc + kx_[c] * (xc - x[e]) + kx_[w] * (xc - x[w]) +
             ky_[c] * (xc - x[nn]) + ky_[s] * (xc - x[s]);
    }
  }
}

// conjugate gradients for A x = b_, starting from x
int Diffusion::solve(std::vector<double> &x) {
  const std::size_t n = mesh_.cells();
  apply(x, q_);
  for (std::size_t c = 0; c < n; ++c) {
    r_[c] = b_[c] - q_[c];
    p_[c] = r_[c];
  }
  double rr = dot(r_, r_);
  const double stop = params_.rtol * params_.rtol * dot(b_, b_);
  int it = 0;
  while (it < params_.max_iterations && rr > stop) {
    apply(p_, q_);
    const double alpha = rr / dot(p_, q_);
    for (std::size_t c = 0; c < n; ++c) {
      x[c] += alpha * p_[c];
      r_[c] -= alpha * q_[c];
    }
    const double rr_new = dot(r_, r_);
    const double beta = rr_new / rr;
    rr = rr_new;
    for (std::size_t c = 0; c < n; ++c)
      p_[c] = r_[c] + beta * p_[c];
    ++it;
  }
  if (rr > stop)
    std::fprintf(stderr, "diffusion: CG not converged after %d iterations\n", it);
  return it;
}

void Diffusion::advance(State &s, double dt) {
  assemble(s, dt);
  const int it = solve(s.T);
  iterations_ += it;
  ++solves_;
  max_iterations_seen_ = std::max(max_iterations_seen_, it);
  // the energy consistent with the new temperature
  const std::size_t n = mesh_.cells();
  for (std::size_t c = 0; c < n; ++c)
    s.e[c] = gas::energy(s.T[c]);
}

}  // namespace pp
