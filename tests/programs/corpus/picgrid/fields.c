/* fields.c - the grid arrays, their halo exchange and the field solve.
 *
 * rho (charge density), phi (potential), phi_new (Jacobi scratch, swapped
 * with phi after each sweep), ex and ey (electric field) are defined here
 * and used through the extern declarations of pic.h. Halo rows travel
 * through the four global buffers: halo_exchange() packs the first and last
 * owned rows, posts MPI_Irecv/MPI_Isend and completes them with
 * MPI_Waitall; unpack_halo() copies the received rows into the ghost rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pic.h"

double *rho, *phi, *phi_new, *ex, *ey;
double *sendbuf_lo, *sendbuf_hi, *recvbuf_lo, *recvbuf_hi;
int nx, ny;

enum { TAG_TO_LO = 101, TAG_TO_HI = 102 };

static double *grid_array(void) {
  double *a = calloc((size_t)(ny + 2) * (size_t)nx, sizeof(double));
  if (!a) {
    fprintf(stderr, "picgrid: out of memory for a %d x %d grid\n", ny + 2, nx);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return a;
}

void fields_alloc(const Params *prm) {
  nx = prm->nx;
  ny = prm->ny;
  rho = grid_array();
  phi = grid_array();
  phi_new = grid_array();
  ex = grid_array();
  ey = grid_array();
  sendbuf_lo = malloc((size_t)nx * sizeof(double));
  sendbuf_hi = malloc((size_t)nx * sizeof(double));
  recvbuf_lo = malloc((size_t)nx * sizeof(double));
  recvbuf_hi = malloc((size_t)nx * sizeof(double));
  if (!sendbuf_lo || !sendbuf_hi || !recvbuf_lo || !recvbuf_hi) {
    fprintf(stderr, "picgrid: out of memory for halo buffers\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

void fields_free(void) {
  free(rho);
  free(phi);
  free(phi_new);
  free(ex);
  free(ey);
  free(sendbuf_lo);
  free(sendbuf_hi);
  free(recvbuf_lo);
  free(recvbuf_hi);
}

/* Row 1 goes down to lo (it becomes lo's ghost row ny + 1), row ny goes up
 * to hi (its ghost row 0). */
void halo_exchange(const Params *prm, double *f) {
  MPI_Request req[4];
  memcpy(sendbuf_lo, &f[IDX(1, 0)], (size_t)nx * sizeof(double));
  memcpy(sendbuf_hi, &f[IDX(ny, 0)], (size_t)nx * sizeof(double));
  MPI_Irecv(recvbuf_lo, nx, MPI_DOUBLE, prm->lo, TAG_TO_HI, prm->comm, &req[0]);
  MPI_Irecv(recvbuf_hi, nx, MPI_DOUBLE, prm->hi, TAG_TO_LO, prm->comm, &req[1]);
  MPI_Isend(sendbuf_lo, nx, MPI_DOUBLE, prm->lo, TAG_TO_LO, prm->comm, &req[2]);
  MPI_Isend(sendbuf_hi, nx, MPI_DOUBLE, prm->hi, TAG_TO_HI, prm->comm, &req[3]);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
  unpack_halo(f);
}

void unpack_halo(double *f) {
  int i;
  for (i = 0; i < nx; i++) {
    f[IDX(0, i)] = recvbuf_lo[i];
    f[IDX(ny + 1, i)] = recvbuf_hi[i];
  }
}

/* Deposition writes the nodes of the row above the slab into ghost row
 * ny + 1: that charge belongs to row 1 of the rank above. */
void fold_ghost_charge(const Params *prm) {
  MPI_Request req[2];
  int i;
  memcpy(sendbuf_hi, &rho[IDX(ny + 1, 0)], (size_t)nx * sizeof(double));
  MPI_Irecv(recvbuf_lo, nx, MPI_DOUBLE, prm->lo, TAG_TO_HI, prm->comm, &req[0]);
  MPI_Isend(sendbuf_hi, nx, MPI_DOUBLE, prm->hi, TAG_TO_HI, prm->comm, &req[1]);
  MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
  for (i = 0; i < nx; i++) {
    rho[IDX(1, i)] += recvbuf_lo[i];
    rho[IDX(ny + 1, i)] = 0.0;
  }
}

/* A few Jacobi sweeps of -lap(phi) = rho + background, warm-started from the
 * previous step's potential. */
void solve_field(const Params *prm, double background) {
  int sweep, i, j;
  for (sweep = 0; sweep < prm->sweeps; sweep++) {
    double *tmp;
    halo_exchange(prm, phi);
    for (j = 1; j <= ny; j++) {
      const double *up = &phi[IDX(j + 1, 0)];
      const double *mid = &phi[IDX(j, 0)];
      const double *down = &phi[IDX(j - 1, 0)];
      const double *rhs = &rho[IDX(j, 0)];
      double *out = &phi_new[IDX(j, 0)];
      out[0] = 0.25 * (mid[nx - 1] + mid[1] + up[0] + down[0] + rhs[0] + background);
      for (i = 1; i < nx - 1; i++)
        out[i] = 0.25 * (mid[i - 1] + mid[i + 1] + up[i] + down[i] + rhs[i] + background);
      out[nx - 1] =
          0.25 * (mid[nx - 2] + mid[0] + up[nx - 1] + down[nx - 1] + rhs[nx - 1] + background);
    }
    tmp = phi;
    phi = phi_new;
    phi_new = tmp;
  }
  halo_exchange(prm, phi);
}

/* E = -grad(phi) by centred differences on the owned rows; then the ghost
 * rows, which the particles of the top cell row interpolate from. */
void compute_efield(const Params *prm) {
  int i, j;
  for (j = 1; j <= ny; j++) {
    for (i = 0; i < nx; i++) {
      const int left = i == 0 ? nx - 1 : i - 1;
      const int right = i == nx - 1 ? 0 : i + 1;
      ex[IDX(j, i)] = -0.5 * (phi[IDX(j, right)] - phi[IDX(j, left)]);
      ey[IDX(j, i)] = -0.5 * (phi[IDX(j + 1, i)] - phi[IDX(j - 1, i)]);
    }
  }
  halo_exchange(prm, ex);
  halo_exchange(prm, ey);
}
