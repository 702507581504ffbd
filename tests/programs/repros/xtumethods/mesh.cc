#include "mesh.h"

#include <cmath>

Mesh::Mesh(int n) : n_(n), u_(n), flux_(n) {
  for (int i = 0; i < n; i++) u_[i] = std::sin(0.01 * i);
}

void Mesh::computeFlux() {
  for (int i = 1; i < n_ - 1; i++)
    flux_[i] = 0.5 * (u_[i + 1] - u_[i - 1]) + 0.25 * std::cos(u_[i]);
}

void Mesh::update(double dt) {
  for (int i = 1; i < n_ - 1; i++) u_[i] -= dt * flux_[i];
}

double Mesh::norm() const {
  double s = 0.0;
  for (int i = 0; i < n_; i++) s += u_[i] * u_[i];
  return std::sqrt(s);
}
