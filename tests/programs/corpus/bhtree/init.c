/* init.c: the initial condition, two Plummer spheres on a collision
 * course, drawn from a fixed-seed LCG. Every rank draws all n bodies in
 * the same order and keeps its block, so the bodies do not depend on the
 * number of ranks. */
#include <math.h>
#include <stdint.h>
#include "nbody.h"

#define SEED 20240611u
#define TWO_PI 6.283185307179586

static uint64_t lcg_state;

static double uniform(void) { /* in (0, 1) */
  lcg_state = lcg_state * 6364136223846793005ull + 1442695040888963407ull;
  return ((double)(lcg_state >> 11) + 0.5) / 9007199254740992.0;
}

static void random_direction(double r, double out[3]) {
  double z = 2.0 * uniform() - 1.0;
  double phi = TWO_PI * uniform();
  double s = sqrt(1.0 - z * z);
  out[0] = r * s * cos(phi);
  out[1] = r * s * sin(phi);
  out[2] = r * z;
}

/* one body of a Plummer sphere of mass m and scale radius a (G = 1):
 * the radius from the inverted cumulative mass, the speed by rejection
 * from q^2 (1 - q^2)^(7/2) in units of the local escape speed */
static void plummer_body(double m, double a, double x[3], double v[3]) {
  double u = 0.99 * uniform();
  double r = a / sqrt(pow(u, -2.0 / 3.0) - 1.0);
  random_direction(r, x);
  double q, g;
  do {
    q = uniform();
    g = 0.1 * uniform();
  } while (g > q * q * pow(1.0 - q * q, 3.5));
  double vesc = sqrt(2.0 * m / sqrt(r * r + a * a));
  random_direction(q * vesc, v);
}

void two_clusters(Body *bodies, int n, int first, int nlocal) {
  const double offset[2][3] = {{-1.2, -0.15, 0.0}, {1.2, 0.15, 0.0}};
  const double bulk[2][3] = {{0.35, 0.0, 0.0}, {-0.35, 0.0, 0.0}};
  const double a = 0.15, mcluster = 0.5;
  double msum = 0.0, mx[3] = {0.0, 0.0, 0.0}, mv[3] = {0.0, 0.0, 0.0};

  lcg_state = SEED;
  for (int i = 0; i < n; i++) {
    int c = i < n / 2 ? 0 : 1;
    int nc = c == 0 ? n / 2 : n - n / 2;
    double m = mcluster / nc, x[3], v[3];
    plummer_body(mcluster, a, x, v);
    for (int d = 0; d < 3; d++) {
      x[d] += offset[c][d];
      v[d] += bulk[c][d];
      mx[d] += m * x[d];
      mv[d] += m * v[d];
    }
    msum += m;
    if (i >= first && i < first + nlocal) {
      Body *b = &bodies[i - first];
      for (int d = 0; d < 3; d++) {
        b->pos[d] = x[d];
        b->vel[d] = v[d];
        b->acc[d] = 0.0;
      }
      b->mass = m;
      b->pot = 0.0;
    }
  }
  /* center of mass at rest at the origin */
  for (int i = 0; i < nlocal; i++)
    for (int d = 0; d < 3; d++) {
      bodies[i].pos[d] -= mx[d] / msum;
      bodies[i].vel[d] -= mv[d] / msum;
    }
}
