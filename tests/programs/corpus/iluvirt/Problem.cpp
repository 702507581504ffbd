#include "Problem.hpp"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace iv {

Options parseOptions(int argc, char** argv) {
  Options opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    const char* key = argv[i];
    const char* val = argv[i + 1];
    if (std::strcmp(key, "-n") == 0)
      opt.n = std::atoi(val);
    else if (std::strcmp(key, "-steps") == 0)
      opt.steps = std::atoi(val);
    else if (std::strcmp(key, "-restart") == 0)
      opt.restart = std::atoi(val);
    else if (std::strcmp(key, "-dt") == 0)
      opt.dt = std::atof(val);
    else if (std::strcmp(key, "-rtol") == 0)
      opt.rtol = std::atof(val);
    else if (std::strcmp(key, "-pc") == 0)
      opt.precond = val;
  }
  return opt;
}

ConvectionDiffusion::ConvectionDiffusion(const Options& opt)
    : n_(opt.n),
      h_(1.0 / (opt.n + 1)),
      dt_(opt.dt),
      nu_(opt.nu),
      speed_(opt.speed) {}

void ConvectionDiffusion::velocity(int i, int j, double& ax, double& ay) const {
  const double x = (i + 1) * h_ - 0.5, y = (j + 1) * h_ - 0.5;
  const double taper = 1.0 - 4.0 * (x * x + y * y);
  ax = -speed_ * y * (taper > 0.0 ? taper : 0.0) * 4.0;
  ay = speed_ * x * (taper > 0.0 ? taper : 0.0) * 4.0;
}

CsrMatrix ConvectionDiffusion::assemble() const {
  std::vector<Triplet> t;
  t.reserve(static_cast<std::size_t>(5) * n_ * n_);
  const double d = nu_ / (h_ * h_);
  for (int j = 0; j < n_; ++j) {
    for (int i = 0; i < n_; ++i) {
      const int row = j * n_ + i;
      double ax, ay;
      velocity(i, j, ax, ay);
      // upwind: the flux comes from the side the flow comes from
      const double cw = ax > 0.0 ? ax / h_ : 0.0, ce = ax < 0.0 ? -ax / h_ : 0.0;
      const double cs = ay > 0.0 ? ay / h_ : 0.0, cn = ay < 0.0 ? -ay / h_ : 0.0;
      t.push_back({row, row, 1.0 / dt_ + 4.0 * d + cw + ce + cs + cn});
      if (i > 0)
        t.push_back({row, row - 1, -d - cw});
      if (i < n_ - 1)
        t.push_back({row, row + 1, -d - ce});
      if (j > 0)
        t.push_back({row, row - n_, -d - cs});
      if (j < n_ - 1)
        t.push_back({row, row + n_, -d - cn});
    }
  }
  return CsrMatrix(n_ * n_, std::move(t));
}

Vector ConvectionDiffusion::source() const {
  Vector f(static_cast<std::size_t>(n_) * n_);
  for (int j = 0; j < n_; ++j)
    for (int i = 0; i < n_; ++i) {
      const double x = (i + 1) * h_, y = (j + 1) * h_;
      const double r1 = (x - 0.3) * (x - 0.3) + (y - 0.5) * (y - 0.5);
      const double r2 = (x - 0.7) * (x - 0.7) + (y - 0.4) * (y - 0.4);
      f[static_cast<std::size_t>(j) * n_ + i] =
          10.0 * std::exp(-r1 / 0.005) - 5.0 * std::exp(-r2 / 0.01);
    }
  return f;
}

void ConvectionDiffusion::rightHandSide(const Vector& u, const Vector& f,
                                        Vector& b) const {
  const double inv_dt = 1.0 / dt_;
  for (std::size_t k = 0; k < u.size(); ++k)
    b[k] = inv_dt * u[k] + f[k];
}

}  // namespace iv
