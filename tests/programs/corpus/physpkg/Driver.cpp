// Driver.cpp
#include "Driver.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "Timer.hpp"

namespace pp {

Driver::Driver(const Mesh &mesh, const std::vector<std::string> &package_names,
               double cfl)
    : mesh_(mesh), state_(mesh.cells(), kNumSpecies), cfl_(cfl) {
  for (const std::string &name : package_names)
    packages_.push_back(make_package(name, mesh_));
  initialize(state_, mesh_);
}

double Driver::stableDt() const {
  double dt = std::numeric_limits<double>::max();
  const std::size_t n = mesh_.cells();
  for (std::size_t c = 0; c < n; ++c) {
    const double speed = std::fabs(state_.u[c]) + std::fabs(state_.v[c]) + state_.cs[c];
    dt = std::min(dt, cfl_ * mesh_.dx() / speed);
  }
  return dt;
}

void Driver::run(int nsteps) {
  for (int n = 0; n < nsteps; ++n) {
    double dt;
    {
      ScopedTimer t(timers_["cfl"]);
      dt = stableDt();
    }
    for (auto &p : packages_) {
      ScopedTimer t(timers_[p->name()]);
      p->advance(state_, dt);
    }
    time_ += dt;
    ++step_;
    {
      ScopedTimer t(timers_["diagnostics"]);
      diag_.record(state_, mesh_, time_, dt);
    }
  }
}

void Driver::report() const {
  std::printf("%d steps to t = %.6f\n", step_, time_);
  diag_.print(10);
  std::printf("timers (s):\n");
  for (const auto &entry : timers_)
    std::printf("  %-12s %8.4f\n", entry.first.c_str(), entry.second);
}

}  // namespace pp
