// fvmesh: explicit finite-volume diffusion of three species on an
// unstructured quadrilateral mesh, written the way C++ mini-apps are: a
// templated Field<T> container with operator()(i, j) returning T&, a Mesh
// of std::vector<Node> and std::vector<Cell> where cells hold indices into
// the node and cell vectors (mesh.nodes[cell.n[k]], state(cell.nbr[k], v)),
// a Solver class whose methods call each other through `this`, a
// reduction into a member, std::chrono timers and a step count.
//   usage: fvmesh [n] [steps]
//
// Expected ranking (owner main), derived from a by-function profile
// (blame report --by-function at 2 kHz):
//   Solver::computeFluxes ~60%  writes flux_ from state_ and the edge lengths
//                               (Mesh::edgeLength reads mesh.nodes through
//                               the cells' node indices)
//   Solver::updateState   ~25%  writes state_ from flux_
//   Solver::totalMass     ~10%  reduces state_ into the member mass_
//   Mesh::build            <1%  writes the mesh once
//  1. solver: every step writes one of its fields (>= 0.9 x step);
//  2. solver.flux_ gets computeFluxes (>= 0.9 x its share), solver.state_
//     gets updateState (>= 0.9 x its share);
//  3. mesh and its nodes and cells are only read after build: low, well
//     below solver.flux_ (the indirection nodes[cell.n[k]] reads them);
//  4. solver.mass_ (a scalar reduced from state_), nsteps, the timers:
//     derived scalars or low, never above solver.flux_.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "mesh.h"

class Solver {
 public:
  static constexpr int kSpecies = 3;
  Solver(const Mesh &mesh, double kappa)
      : mesh_(mesh), state_(mesh.numCells(), kSpecies), flux_(mesh.numCells(), 4 * kSpecies),
        kappa_(kappa), mass_(0.0), nsteps_(0) {
    for (int c = 0; c < mesh.numCells(); c++)
      for (int v = 0; v < kSpecies; v++) state_(c, v) = (c % 97 == v) ? 100.0 : 1.0;
  }

  void step(double dt) {
    this->computeFluxes();
    this->updateState(dt);
    mass_ = this->totalMass();
    nsteps_++;
  }

  double mass() const { return mass_; }
  int steps() const { return nsteps_; }

 private:
  void computeFluxes() {
    const int nc = mesh_.numCells();
    for (int c = 0; c < nc; c++) {
      const Cell &cell = mesh_.cells[c];
      for (int k = 0; k < 4; k++) {
        int nb = cell.nbr[k];
        double len = mesh_.edgeLength(cell, k);
        for (int v = 0; v < kSpecies; v++) {
          double other = nb >= 0 ? state_(nb, v) : state_(c, v);
          flux_(c, 4 * v + k) = kappa_ * len * (other - state_(c, v)) / std::sqrt(cell.area);
        }
      }
    }
  }

  void updateState(double dt) {
    const int nc = mesh_.numCells();
    for (int c = 0; c < nc; c++) {
      double w = dt / mesh_.cells[c].area;
      for (int v = 0; v < kSpecies; v++) {
        double sum = 0.0;
        for (int k = 0; k < 4; k++) sum += flux_(c, 4 * v + k);
        state_(c, v) += w * sum;
      }
    }
  }

  double totalMass() {
    mass_ = 0.0;
    for (int c = 0; c < mesh_.numCells(); c++)
      for (int v = 0; v < kSpecies; v++) mass_ += state_(c, v) * mesh_.cells[c].area;
    return mass_;
  }

  const Mesh &mesh_;
  Field<double> state_;
  Field<double> flux_;
  double kappa_;
  double mass_;
  int nsteps_;
};

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 160;
  int steps = argc > 2 ? std::atoi(argv[2]) : 160;
  Mesh mesh;
  mesh.build(n, n);
  Solver solver(mesh, 1.0);
  double dt = 0.2 / (double(n) * n);
  auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; s++) solver.step(dt);
  auto t1 = std::chrono::steady_clock::now();
  double secs = std::chrono::duration<double>(t1 - t0).count();
  std::printf("fvmesh: %d cells, %d steps, mass %.6e, %.3f s\n", mesh.numCells(), solver.steps(),
              solver.mass(), secs);
  return 0;
}
