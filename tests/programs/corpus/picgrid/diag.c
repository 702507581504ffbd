/* diag.c - energies of the particles and the field, summed over ranks. */
#include "pic.h"

Energies compute_energies(const Params *prm, const Species *s) {
  double local[4] = {0.0, 0.0, 0.0, 0.0}, total[4];
  Energies e;
  int k, i, j;
  for (k = 0; k < s->n; k++)
    local[0] += s->p[k].vx * s->p[k].vx + s->p[k].vy * s->p[k].vy;
  local[0] *= 0.5 * s->m;
  for (j = 1; j <= prm->ny; j++)
    for (i = 0; i < prm->nx; i++) {
      local[1] += ex[IDX(j, i)] * ex[IDX(j, i)] + ey[IDX(j, i)] * ey[IDX(j, i)];
      local[2] += rho[IDX(j, i)];
    }
  local[1] *= 0.5;
  local[3] = s->n;
  MPI_Allreduce(local, total, 4, MPI_DOUBLE, MPI_SUM, prm->comm);
  e.kinetic = total[0];
  e.field = total[1];
  e.charge = total[2];
  e.particles = (long)(total[3] + 0.5);
  return e;
}
