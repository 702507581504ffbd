// xtumethods: a C++ class whose methods are defined in another translation
// unit (mesh.cc) than the driver calling them (t.cc).
#pragma once
#include <vector>

class Mesh {
 public:
  explicit Mesh(int n);
  void computeFlux();  // writes flux_ from u_
  void update(double dt);  // writes u_ from flux_
  double norm() const;

  long steps_done = 0;  // the driver's bookkeeping, beside the fields
  double time = 0.0;

 private:
  int n_;
  std::vector<double> u_, flux_;
};
