/* comm.c: the block decomposition and the all-gather of positions and
 * masses (4 doubles a body: x, y, z, m) that every rank builds its tree
 * from. */
#include "nbody.h"

/* counts and displacements in doubles, block rows of bodies */
void decompose(int n, int nranks, int *counts, int *displs) {
  int base = n / nranks, extra = n % nranks, offset = 0;
  for (int r = 0; r < nranks; r++) {
    int nb = base + (r < extra ? 1 : 0);
    counts[r] = 4 * nb;
    displs[r] = 4 * offset;
    offset += nb;
  }
}

void pack_local(const Body *bodies, int nlocal, double *sendbuf) {
  for (int i = 0; i < nlocal; i++) {
    double *x = &sendbuf[4 * i];
    x[0] = bodies[i].pos[0];
    x[1] = bodies[i].pos[1];
    x[2] = bodies[i].pos[2];
    x[3] = bodies[i].mass;
  }
}

void gather_positions(const double *sendbuf, int nsend, double *gpos,
                      const int *counts, const int *displs, MPI_Comm comm) {
  MPI_Allgatherv(sendbuf, nsend, MPI_DOUBLE, gpos, counts, displs, MPI_DOUBLE,
                 comm);
}
