#include "Assembly.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace fem {

namespace {

constexpr int kNodes = 4;
constexpr int kDofs = 2 * kNodes;
constexpr double kGauss = 0.57735026918962576;  // 1 / sqrt(3)
constexpr double kPoints[4][2] = {
    {-kGauss, -kGauss}, {kGauss, -kGauss}, {kGauss, kGauss}, {-kGauss, kGauss}};

// Derivatives of the bilinear shape functions in physical coordinates at the
// reference point (xi, eta), and the Jacobian determinant.
struct ShapeGradients {
  double dx[kNodes];
  double dy[kNodes];
  double det;
};

ShapeGradients shape_gradients(const Mesh &mesh, const Mesh::Quad &quad, double xi,
                               double eta) {
  const double dxi[kNodes] = {-0.25 * (1 - eta), 0.25 * (1 - eta), 0.25 * (1 + eta),
                              -0.25 * (1 + eta)};
  const double deta[kNodes] = {-0.25 * (1 - xi), -0.25 * (1 + xi), 0.25 * (1 + xi),
                               0.25 * (1 - xi)};
  double j11 = 0, j12 = 0, j21 = 0, j22 = 0;
  for (int a = 0; a < kNodes; ++a) {
    const auto &p = mesh.node(quad[a]);
    j11 += dxi[a] * p[0];
    j12 += dxi[a] * p[1];
    j21 += deta[a] * p[0];
    j22 += deta[a] * p[1];
  }
  ShapeGradients g;
  g.det = j11 * j22 - j12 * j21;
  if (g.det <= 0.0) throw std::runtime_error("non-positive Jacobian");
  const double inv = 1.0 / g.det;
  for (int a = 0; a < kNodes; ++a) {
    g.dx[a] = inv * (j22 * dxi[a] - j12 * deta[a]);
    g.dy[a] = inv * (-j21 * dxi[a] + j11 * deta[a]);
  }
  return g;
}

void element_dofs(const Mesh::Quad &quad, int dofs[kDofs]) {
  for (int a = 0; a < kNodes; ++a) {
    dofs[2 * a] = 2 * quad[a];
    dofs[2 * a + 1] = 2 * quad[a] + 1;
  }
}

// strain = B u_e at one point
void strain_at(const ShapeGradients &g, const double ue[kDofs], double eps[3]) {
  eps[0] = eps[1] = eps[2] = 0.0;
  for (int a = 0; a < kNodes; ++a) {
    eps[0] += g.dx[a] * ue[2 * a];
    eps[1] += g.dy[a] * ue[2 * a + 1];
    eps[2] += g.dy[a] * ue[2 * a] + g.dx[a] * ue[2 * a + 1];
  }
}

double equivalent_strain(const double eps[3]) {
  return std::sqrt(eps[0] * eps[0] + eps[1] * eps[1] + 0.5 * eps[2] * eps[2]);
}

// Secant stiffness of one element by 2 x 2 Gauss quadrature:
// ke = sum_q B^T D(E_s(eps_q)) B det J_q t.
double element_stiffness(const Model &model, const Mesh::Quad &quad, const double ue[kDofs],
                         double ke[kDofs][kDofs]) {
  const Material &mat = model.material();
  for (int a = 0; a < kDofs; ++a)
    for (int b = 0; b < kDofs; ++b) ke[a][b] = 0.0;

  double emin = mat.young;
  for (const auto &pt : kPoints) {
    const ShapeGradients g = shape_gradients(model.mesh(), quad, pt[0], pt[1]);
    double eps[3];
    strain_at(g, ue, eps);
    const double e_s = mat.secant_modulus(equivalent_strain(eps));
    emin = std::min(emin, e_s);

    const double nu = mat.poisson;
    const double c = e_s / (1.0 - nu * nu) * g.det * mat.thickness;
    const double d[3][3] = {{c, c * nu, 0.0}, {c * nu, c, 0.0}, {0.0, 0.0, c * 0.5 * (1.0 - nu)}};

    double B[3][kDofs];
    for (int a = 0; a < kNodes; ++a) {
      B[0][2 * a] = g.dx[a];
      B[0][2 * a + 1] = 0.0;
      B[1][2 * a] = 0.0;
      B[1][2 * a + 1] = g.dy[a];
      B[2][2 * a] = g.dy[a];
      B[2][2 * a + 1] = g.dx[a];
    }
    double DB[3][kDofs];
    for (int i = 0; i < 3; ++i)
      for (int b = 0; b < kDofs; ++b) DB[i][b] = d[i][0] * B[0][b] + d[i][1] * B[1][b] + d[i][2] * B[2][b];
    for (int a = 0; a < kDofs; ++a)
      for (int b = 0; b < kDofs; ++b) ke[a][b] += B[0][a] * DB[0][b] + B[1][a] * DB[1][b] + B[2][a] * DB[2][b];
  }
  return emin;
}

}  // namespace

AssemblyInfo assemble_system(const Model &model, const std::vector<double> &u,
                             double load_factor, SparseBuilder &builder,
                             std::vector<double> &rhs) {
  const Mesh &mesh = model.mesh();
  AssemblyInfo info;
  info.min_modulus = model.material().young;
  builder.clear();

  for (int e = 0; e < mesh.num_elems(); ++e) {
    const Mesh::Quad &quad = mesh.elem(e);
    int dofs[kDofs];
    element_dofs(quad, dofs);
    double ue[kDofs];
    for (int a = 0; a < kDofs; ++a) ue[a] = u[dofs[a]];

    double ke[kDofs][kDofs];
    info.min_modulus = std::min(info.min_modulus, element_stiffness(model, quad, ue, ke));

    // scatter, dropping the rows and columns of clamped dofs (their value is 0)
    for (int a = 0; a < kDofs; ++a) {
      if (model.is_fixed(dofs[a])) continue;
      for (int b = 0; b < kDofs; ++b) {
        if (model.is_fixed(dofs[b])) continue;
        builder.add(dofs[a], dofs[b], ke[a][b]);
        ++info.inserts;
      }
    }
  }
  for (int d : model.fixed_dofs()) builder.add(d, d, 1.0);

  const std::vector<double> &f = model.reference_load();
  rhs.assign(f.size(), 0.0);
  for (std::size_t i = 0; i < f.size(); ++i)
    rhs[i] = model.is_fixed(static_cast<int>(i)) ? 0.0 : load_factor * f[i];
  return info;
}

void element_centre_strain(const Model &model, int e, const std::vector<double> &u,
                           double strain[3], double &modulus) {
  const Mesh::Quad &quad = model.mesh().elem(e);
  int dofs[kDofs];
  element_dofs(quad, dofs);
  double ue[kDofs];
  for (int a = 0; a < kDofs; ++a) ue[a] = u[dofs[a]];
  const ShapeGradients g = shape_gradients(model.mesh(), quad, 0.0, 0.0);
  strain_at(g, ue, strain);
  modulus = model.material().secant_modulus(equivalent_strain(strain));
}

}  // namespace fem
