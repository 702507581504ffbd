/* integrate.c: the two halves of the kick-drift-kick leapfrog. */
#include "nbody.h"

/* v += a h */
void kick(Body *bodies, int nlocal, double h) {
  for (int i = 0; i < nlocal; i++) {
    Body *b = &bodies[i];
    for (int d = 0; d < 3; d++)
      b->vel[d] += h * b->acc[d];
  }
}

/* x += v h */
void drift(Body *bodies, int nlocal, double h) {
  for (int i = 0; i < nlocal; i++) {
    Body *b = &bodies[i];
    for (int d = 0; d < 3; d++)
      b->pos[d] += h * b->vel[d];
  }
}
