/* mdlink: the simulation box, the FCC lattice and the initial velocities. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "md.h"

void atoms_grow(Atoms *atoms, int nmax) {
  if (nmax <= atoms->nmax)
    return;
  atoms->x = realloc(atoms->x, sizeof(double) * 3 * (size_t)nmax);
  atoms->v = realloc(atoms->v, sizeof(double) * 3 * (size_t)nmax);
  atoms->f = realloc(atoms->f, sizeof(double) * 3 * (size_t)nmax);
  if (!atoms->x || !atoms->v || !atoms->f) {
    fprintf(stderr, "mdlink: out of memory growing atoms to %d\n", nmax);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  atoms->nmax = nmax;
}

/* The box holds nx*ny*nz unit cells of lattice constant (4/rho)^(1/3); the
 * ranks slice it along x. */
void create_box(Atoms *atoms, const Params *p, const Comm *comm) {
  double a = pow(4.0 / p->rho, 1.0 / 3.0);
  atoms->box[0] = a * p->nx;
  atoms->box[1] = a * p->ny;
  atoms->box[2] = a * p->nz;
  for (int d = 0; d < 3; d++) {
    atoms->lo[d] = 0.0;
    atoms->hi[d] = atoms->box[d];
  }
  atoms->lo[0] = atoms->box[0] * comm->me / comm->nprocs;
  atoms->hi[0] = atoms->box[0] * (comm->me + 1) / comm->nprocs;
  if (comm->me == comm->nprocs - 1)
    atoms->hi[0] = atoms->box[0];
}

static const double fcc_basis[4][3] = {
    {0.0, 0.0, 0.0}, {0.5, 0.5, 0.0}, {0.5, 0.0, 0.5}, {0.0, 0.5, 0.5}};

/* The lattice sites that fall in this rank's sub-box. */
void create_atoms(Atoms *atoms, const Params *p) {
  double a = pow(4.0 / p->rho, 1.0 / 3.0);
  int guess = (int)(4.0 * p->ny * p->nz * (atoms->hi[0] - atoms->lo[0]) / a * 1.2) + 64;
  atoms_grow(atoms, guess);
  atoms->nlocal = 0;
  atoms->nghost = 0;
  atoms->natoms = 4L * p->nx * p->ny * p->nz;
  int ilo = (int)floor(atoms->lo[0] / a) - 1;
  int ihi = (int)ceil(atoms->hi[0] / a) + 1;
  for (int i = ilo; i <= ihi; i++) {
    if (i < 0 || i >= p->nx)
      continue;
    for (int j = 0; j < p->ny; j++)
      for (int k = 0; k < p->nz; k++)
        for (int b = 0; b < 4; b++) {
          double xs = (i + fcc_basis[b][0]) * a;
          if (xs < atoms->lo[0] || xs >= atoms->hi[0])
            continue;
          if (atoms->nlocal == atoms->nmax)
            atoms_grow(atoms, 2 * atoms->nmax);
          double *xi = &atoms->x[3 * atoms->nlocal];
          xi[0] = xs;
          xi[1] = (j + fcc_basis[b][1]) * a;
          xi[2] = (k + fcc_basis[b][2]) * a;
          atoms->nlocal++;
        }
  }
}

/* A reproducible uniform number in [-0.5, 0.5) from the lattice position of
 * an atom, so the velocities do not depend on how the box is sliced. */
static double site_random(double x, double y, double z, int comp) {
  unsigned long long h = (unsigned long long)(x * 1000.0 + 0.5);
  h = h * 6364136223846793005ULL + (unsigned long long)(y * 1000.0 + 0.5);
  h = h * 6364136223846793005ULL + (unsigned long long)(z * 1000.0 + 0.5);
  h = h * 6364136223846793005ULL + (unsigned long long)comp + 1442695040888963407ULL;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return (double)(h >> 11) / 9007199254740992.0 - 0.5;
}

void create_velocities(Atoms *atoms, const Params *p, Comm *comm) {
  double mom[4] = {0.0, 0.0, 0.0, 0.0};
  for (int i = 0; i < atoms->nlocal; i++) {
    const double *xi = &atoms->x[3 * i];
    for (int d = 0; d < 3; d++) {
      atoms->v[3 * i + d] = site_random(xi[0], xi[1], xi[2], d);
      mom[d] += atoms->v[3 * i + d];
    }
  }
  double gmom[4];
  MPI_Allreduce(mom, gmom, 3, MPI_DOUBLE, MPI_SUM, comm->comm);
  for (int d = 0; d < 3; d++)
    gmom[d] /= (double)atoms->natoms;

  double ke = 0.0;
  for (int i = 0; i < atoms->nlocal; i++)
    for (int d = 0; d < 3; d++) {
      atoms->v[3 * i + d] -= gmom[d];
      ke += atoms->v[3 * i + d] * atoms->v[3 * i + d];
    }
  double gke;
  MPI_Allreduce(&ke, &gke, 1, MPI_DOUBLE, MPI_SUM, comm->comm);
  double t = p->mass * gke / (3.0 * (double)atoms->natoms - 3.0);
  double scale = sqrt(p->temp0 / t);
  for (int i = 0; i < 3 * atoms->nlocal; i++)
    atoms->v[i] *= scale;
}
