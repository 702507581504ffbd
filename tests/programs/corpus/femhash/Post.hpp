// Post-processing: element stresses, summary statistics, end deflection.
#pragma once

#include <vector>

#include "Model.hpp"
#include "Sparse.hpp"

namespace fem {

struct Stats {
  double min = 0.0;
  double max = 0.0;
  double mean = 0.0;
  int count = 0;
};

// von Mises stress at the centre of every element
std::vector<double> element_stresses(const Model &model, const std::vector<double> &u);

Stats compute_stats(const std::vector<double> &values);

// mean vertical displacement of the loaded edge
double end_deflection(const Model &model, const std::vector<double> &u);

// |b - A x| / |b|
double residual_norm(const CsrMatrix &A, const std::vector<double> &b,
                     const std::vector<double> &x);

}  // namespace fem
