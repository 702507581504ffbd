// Assembly of the secant stiffness matrix K(u) of the softening material and
// of the load vector, with the clamped dofs eliminated.
#pragma once

#include <vector>

#include "Model.hpp"
#include "Sparse.hpp"

namespace fem {

struct AssemblyInfo {
  double min_modulus = 0.0;  // smallest secant modulus at a Gauss point
  long inserts = 0;          // calls of SparseBuilder::add
};

// Fills builder (cleared first) with K(u) and rhs with load_factor * f.
AssemblyInfo assemble_system(const Model &model, const std::vector<double> &u,
                             double load_factor, SparseBuilder &builder,
                             std::vector<double> &rhs);

// Strain (exx, eyy, gxy) at the centre of element e, and its secant modulus.
void element_centre_strain(const Model &model, int e, const std::vector<double> &u,
                           double strain[3], double &modulus);

}  // namespace fem
