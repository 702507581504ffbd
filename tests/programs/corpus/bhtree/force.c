/* force.c: the Barnes-Hut walk. A cell seen under an angle below theta
 * (side / distance < theta, and the body not inside it) acts as a point
 * mass at its center of mass; otherwise its children are visited. Forces
 * are softened (Plummer, eps). */
#include <math.h>
#include "tree.h"

/* one softened point-mass interaction, added into acc and pot */
static inline void interact(const double com[3], double m,
                            const double pos[3], double acc[3], double *pot) {
  double dx = com[0] - pos[0];
  double dy = com[1] - pos[1];
  double dz = com[2] - pos[2];
  double r2 = dx * dx + dy * dy + dz * dz + sim.eps2;
  double rinv = 1.0 / sqrt(r2);
  double gm = sim.G * m * rinv;
  double f = gm * rinv * rinv;
  acc[0] += f * dx;
  acc[1] += f * dy;
  acc[2] += f * dz;
  *pot -= gm;
}

static int inside(const Node *n, const double pos[3]) {
  return fabs(pos[0] - n->center[0]) <= n->half &&
         fabs(pos[1] - n->center[1]) <= n->half &&
         fabs(pos[2] - n->center[2]) <= n->half;
}

void walk_force(const Node *n, const double pos[3], int self, double acc[3],
                double *pot, long *interactions) {
  if (n->count == 1) {
    if (n->body != self) {
      interact(n->com, n->mass, pos, acc, pot);
      (*interactions)++;
    }
    return;
  }
  double dx = n->com[0] - pos[0];
  double dy = n->com[1] - pos[1];
  double dz = n->com[2] - pos[2];
  double r2 = dx * dx + dy * dy + dz * dz;
  double size = 2.0 * n->half;
  if (size * size < sim.theta2 * r2 && !inside(n, pos)) {
    interact(n->com, n->mass, pos, acc, pot);
    (*interactions)++;
    return;
  }
  for (int k = 0; k < 8; k++)
    if (n->child[k])
      walk_force(n->child[k], pos, self, acc, pot, interactions);
}

/* the accelerations and potentials of this rank's bodies (global indices
 * first .. first + nlocal - 1) */
void compute_forces(const Node *root, Body *bodies, int nlocal, int first,
                    long *interactions) {
  for (int i = 0; i < nlocal; i++) {
    Body *b = &bodies[i];
    b->acc[0] = b->acc[1] = b->acc[2] = 0.0;
    b->pot = 0.0;
    walk_force(root, b->pos, first + i, b->acc, &b->pot, interactions);
  }
}

/* the same softened acceleration by direct summation over all bodies */
void direct_force(const double *gpos, int n, int self, double acc[3]) {
  const double *x = &gpos[4 * self];
  double pot = 0.0;
  acc[0] = acc[1] = acc[2] = 0.0;
  for (int j = 0; j < n; j++)
    if (j != self)
      interact(&gpos[4 * j], gpos[4 * j + 3], x, acc, &pot);
}
