/* params.c: the global simulation parameters (read through extern). */
#include "nbody.h"

SimParams sim = {0.6, 0.02, 0.01, 1.0, 0.36, 4e-4};

void params_setup(double theta, double eps, double dt) {
  sim.theta = theta;
  sim.eps = eps;
  sim.dt = dt;
  sim.G = 1.0;
  sim.theta2 = theta * theta;
  sim.eps2 = eps * eps;
}
