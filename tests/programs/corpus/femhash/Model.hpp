// Model: the tapered cantilever plate in plane stress, clamped at x = 0 and
// loaded by a downward shear traction on the free end. It owns the mesh, the
// material and the boundary conditions; all are read-only once made.
#pragma once

#include <memory>
#include <vector>

#include "Mesh.hpp"

namespace fem {

// A softening elastic material: the secant modulus falls from young towards
// young * (1 - softening) as the equivalent strain grows past strain_ref.
struct Material {
  double young = 2.0e5;
  double poisson = 0.3;
  double thickness = 1.0;
  double softening = 0.3;
  double strain_ref = 1.0e-3;

  double secant_modulus(double eq_strain) const {
    const double s = (eq_strain / strain_ref) * (eq_strain / strain_ref);
    return young * (1.0 - softening * s / (1.0 + s));
  }
};

struct ModelConfig {
  int nx = 96, ny = 72;
  double length = 1.6, height = 1.0, taper = 0.4;
  double end_load = 80.0;  // total downward force on the free end
  unsigned seed = 2024;
};

class Model {
public:
  Model(Mesh mesh, const Material &material, double end_load);

  const Mesh &mesh() const { return mesh_; }
  const Material &material() const { return material_; }
  int num_dofs() const { return 2 * mesh_.num_nodes(); }
  bool is_fixed(int dof) const { return fixed_[dof] != 0; }
  const std::vector<int> &fixed_dofs() const { return fixed_dofs_; }
  // nodal forces at load factor 1
  const std::vector<double> &reference_load() const { return load_; }
  double end_load() const { return end_load_; }

private:
  Mesh mesh_;
  Material material_;
  double end_load_;
  std::vector<char> fixed_;
  std::vector<int> fixed_dofs_;
  std::vector<double> load_;
};

std::unique_ptr<Model> make_model(const ModelConfig &config);

}  // namespace fem
