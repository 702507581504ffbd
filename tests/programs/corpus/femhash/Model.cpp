#include "Model.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace fem {

Model::Model(Mesh mesh, const Material &material, double end_load)
    : mesh_(std::move(mesh)), material_(material), end_load_(end_load) {
  const int ndof = num_dofs();
  fixed_.assign(ndof, 0);
  load_.assign(ndof, 0.0);

  // clamped edge: both displacement components are zero
  for (int n : mesh_.clamped_nodes()) {
    for (int c = 0; c < 2; ++c) {
      fixed_[2 * n + c] = 1;
      fixed_dofs_.push_back(2 * n + c);
    }
  }

  // loaded edge: a uniform shear traction, lumped to the nodes by the length
  // of the edge segments on either side of each node
  const std::vector<int> &edge = mesh_.loaded_nodes();
  const double h = mesh_.node(edge.back())[1] - mesh_.node(edge.front())[1];
  if (edge.size() < 2 || h <= 0.0) throw std::runtime_error("bad loaded edge");
  const double traction = end_load / h;
  for (std::size_t k = 0; k + 1 < edge.size(); ++k) {
    const double seg = mesh_.node(edge[k + 1])[1] - mesh_.node(edge[k])[1];
    load_[2 * edge[k] + 1] -= 0.5 * traction * seg;
    load_[2 * edge[k + 1] + 1] -= 0.5 * traction * seg;
  }
}

std::unique_ptr<Model> make_model(const ModelConfig &config) {
  Mesh mesh = Mesh::tapered_plate(config.nx, config.ny, config.length, config.height,
                                  config.taper, config.seed);
  if (mesh.min_area() <= 0.0) throw std::runtime_error("inverted element in the mesh");
  Material steel_like;
  return std::make_unique<Model>(std::move(mesh), steel_like, config.end_load);
}

}  // namespace fem
