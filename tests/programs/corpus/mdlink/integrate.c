/* mdlink: velocity Verlet and the thermodynamic output. */
#include <math.h>
#include <stdio.h>

#include "md.h"

/* First half kick and drift of the local atoms. */
void initial_integrate(Atoms *atoms, const Params *p) {
  const double dtf = 0.5 * p->dt / p->mass;
  const double dt = p->dt;
  double *x = atoms->x, *v = atoms->v;
  const double *f = atoms->f;
  for (int i = 0; i < 3 * atoms->nlocal; i++) {
    v[i] += dtf * f[i];
    x[i] += dt * v[i];
  }
}

/* Second half kick with the new forces. */
void final_integrate(Atoms *atoms, const Params *p) {
  const double dtf = 0.5 * p->dt / p->mass;
  double *v = atoms->v;
  const double *f = atoms->f;
  for (int i = 0; i < 3 * atoms->nlocal; i++)
    v[i] += dtf * f[i];
}

/* Reduces kinetic energy, potential energy and virial over the ranks and
 * updates the statistics; rank 0 prints a line. */
void thermo(const Atoms *atoms, const Params *p, Comm *comm, double pe_local, double virial_local,
            int step, Stats *st) {
  double vsq = 0.0;
  for (int i = 0; i < 3 * atoms->nlocal; i++)
    vsq += atoms->v[i] * atoms->v[i];
  double local[3] = {vsq, pe_local, virial_local}, global[3];
  MPI_Allreduce(local, global, 3, MPI_DOUBLE, MPI_SUM, comm->comm);

  const double natoms = (double)atoms->natoms;
  const double volume = atoms->box[0] * atoms->box[1] * atoms->box[2];
  st->temp = p->mass * global[0] / (3.0 * natoms - 3.0);
  st->ke = 0.5 * p->mass * global[0] / natoms;
  st->pe = global[1] / natoms;
  st->press = (natoms * st->temp + global[2] / 3.0) / volume;
  double etot = st->ke + st->pe;
  if (st->nthermo == 0)
    st->etot0 = etot;
  double drift = fabs((etot - st->etot0) / st->etot0);
  if (drift > st->drift_max)
    st->drift_max = drift;
  st->temp_sum += st->temp;
  st->temp_sqsum += st->temp * st->temp;
  st->nthermo++;
  if (comm->me == 0)
    printf("%6d  T %9.6f  PE %10.6f  KE %9.6f  Etot %10.6f  P %9.6f\n", step, st->temp, st->pe,
           st->ke, etot, st->press);
}
