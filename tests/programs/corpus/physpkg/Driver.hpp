// Driver.hpp: owns the mesh, the state and the packages, and runs the time
// loop (operator splitting, the packages in the order they were named).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "Mesh.hpp"
#include "Package.hpp"
#include "State.hpp"

namespace pp {

class Driver {
 public:
  Driver(const Mesh &mesh, const std::vector<std::string> &package_names, double cfl);

  void run(int nsteps);
  void report() const;

 private:
  // the largest dt the CFL condition allows, the minimum over the cells
  double stableDt() const;

  Mesh mesh_;
  State state_;
  std::vector<std::unique_ptr<Package>> packages_;
  std::map<std::string, double> timers_;
  Diagnostics diag_;
  double cfl_;
  double time_ = 0.0;
  int step_ = 0;
};

}  // namespace pp
