/* ftnstyle's main program: see sweep.c for what a reader expects. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common.h"

static double wall(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
  int iters = 10000;
  if (argc > 1) sscanf(argv[1], "%d", &iters);
  memset(field_u, 0, sizeof field_u);
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++) field_f[j][i] = ((i - NX / 2) * (i - NX / 2) + (j - NY / 2) * (j - NY / 2) < 400) ? -1e-3 : 0.0;
  for (int k = 0; k < NCELL; k++) {
    cells[k].st.rho = 1.0 + (k % 7) * 0.1;
    cells[k].st.e = 0.0;
    cells[k].mat = k % 3;
  }
  double t0 = wall(), e = 0;
  for (int it = 0; it < iters; it++) {
    relax_sweep();
    if (it % 4 == 0) update_cells(1e-3);
    if (it % 50 == 0) e = energy();
  }
  double t = wall() - t0;
  printf("ftnstyle: %d sweeps, energy %.6e, u(mid) %.6e, %.3f s\n", nsweeps, e, field_u[NY / 2][NX / 2], t);
  return 0;
}
