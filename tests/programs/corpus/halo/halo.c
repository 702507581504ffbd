/* halo: explicit heat conduction with a variable conductivity on a 2-D grid
 * decomposed over a Cartesian process grid. Every step each rank exchanges
 * its halo (rows with MPI_Sendrecv, packed columns with MPI_Isend/MPI_Irecv/
 * MPI_Waitall; periodic east-west), applies the 5-point stencil, and every
 * few steps the change is reduced with MPI_Allreduce for the stop test.
 *   usage: mpirun -np P halo [N] [steps]
 *
 * Expected ranking (per rank, two ranks), derived from a by-function profile
 * of `mpirun -np 2` (9,882 application samples on a loaded 2-core machine,
 * so the ranks wait for each other more than on a quiet one):
 *   stencil          39%  writes grid.unew (swapped into grid.u each step)
 *   MPI_Sendrecv     55%  receives the ghost rows into grid.u (mostly waiting)
 *   MPI_Allreduce     3%  global_norm, from stencil's change
 *   pack/Isend/Irecv/Waitall ~1% (east-west neighbours are the rank itself)
 *  main:
 *  1. grid, grid.unew/grid.u >= stencil + Sendrecv (nearly all of the run)
 *  2. global_norm   computed from the stencil's change: inclusive, high too
 *  3. halo          its buffers are copies of grid.u's edge columns
 * Must not rank high: step (the step count), t0, t1, t_comm, t_comp (timers),
 * cart (the communicator every MPI call takes), rank, size, dims.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Grid {
  int nx, ny; /* interior points of this rank */
  int ld;     /* row length with the halo, nx + 2 */
  int gx0, gy0;
  double *u;    /* (ny + 2) x (nx + 2) */
  double *unew;
  double *cond; /* conductivity at the points */
} Grid;

typedef struct Halo {
  MPI_Comm cart;
  int north, south, west, east;
  double *send_w, *send_e, *recv_w, *recv_e;
  MPI_Request req[4];
} Halo;

#define AT(g, a, i, j) ((a)[(size_t)(j) * (g)->ld + (i)])

static void grid_init(Grid *g, int N, const int dims[2], const int coords[2]) {
  g->nx = N / dims[1];
  g->ny = N / dims[0];
  g->gx0 = coords[1] * g->nx;
  g->gy0 = coords[0] * g->ny;
  g->ld = g->nx + 2;
  size_t len = (size_t)(g->ny + 2) * g->ld;
  g->u = calloc(len, sizeof(double));
  g->unew = calloc(len, sizeof(double));
  g->cond = calloc(len, sizeof(double));
  for (int j = 0; j < g->ny + 2; j++)
    for (int i = 0; i < g->nx + 2; i++) {
      double x = (double)(g->gx0 + i) / N, y = (double)(g->gy0 + j) / N;
      AT(g, g->cond, i, j) = 0.5 + 0.4 * sin(6.283185307179586 * x) * cos(3.141592653589793 * y);
      AT(g, g->u, i, j) = (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5) < 0.01 ? 1.0 : 0.0;
    }
}

static void halo_init(Halo *h, const Grid *g, MPI_Comm cart) {
  h->cart = cart;
  MPI_Cart_shift(cart, 0, 1, &h->north, &h->south);
  MPI_Cart_shift(cart, 1, 1, &h->west, &h->east);
  h->send_w = malloc(sizeof(double) * g->ny);
  h->send_e = malloc(sizeof(double) * g->ny);
  h->recv_w = malloc(sizeof(double) * g->ny);
  h->recv_e = malloc(sizeof(double) * g->ny);
}

static void exchange_halo(Grid *g, Halo *h) {
  /* rows: contiguous, straight into the ghost rows */
  MPI_Sendrecv(&AT(g, g->u, 1, 1), g->nx, MPI_DOUBLE, h->north, 0, &AT(g, g->u, 1, g->ny + 1),
               g->nx, MPI_DOUBLE, h->south, 0, h->cart, MPI_STATUS_IGNORE);
  MPI_Sendrecv(&AT(g, g->u, 1, g->ny), g->nx, MPI_DOUBLE, h->south, 1, &AT(g, g->u, 1, 0),
               g->nx, MPI_DOUBLE, h->north, 1, h->cart, MPI_STATUS_IGNORE);
  /* columns: packed */
  for (int j = 1; j <= g->ny; j++) {
    h->send_w[j - 1] = AT(g, g->u, 1, j);
    h->send_e[j - 1] = AT(g, g->u, g->nx, j);
  }
  MPI_Irecv(h->recv_w, g->ny, MPI_DOUBLE, h->west, 2, h->cart, &h->req[0]);
  MPI_Irecv(h->recv_e, g->ny, MPI_DOUBLE, h->east, 3, h->cart, &h->req[1]);
  MPI_Isend(h->send_e, g->ny, MPI_DOUBLE, h->east, 2, h->cart, &h->req[2]);
  MPI_Isend(h->send_w, g->ny, MPI_DOUBLE, h->west, 3, h->cart, &h->req[3]);
  MPI_Waitall(4, h->req, MPI_STATUSES_IGNORE);
  for (int j = 1; j <= g->ny; j++) {
    AT(g, g->u, 0, j) = h->recv_w[j - 1];
    AT(g, g->u, g->nx + 1, j) = h->recv_e[j - 1];
  }
}

/* One explicit step; returns the local sum of squared changes. */
static double stencil(Grid *g, double r, int boundary_north, int boundary_south) {
  double change = 0.0;
  int jlo = boundary_north ? 2 : 1, jhi = boundary_south ? g->ny - 1 : g->ny;
  for (int j = jlo; j <= jhi; j++)
    for (int i = 1; i <= g->nx; i++) {
      double c = AT(g, g->cond, i, j);
      double ce = 0.5 * (c + AT(g, g->cond, i + 1, j)), cw = 0.5 * (c + AT(g, g->cond, i - 1, j));
      double cn = 0.5 * (c + AT(g, g->cond, i, j - 1)), cs = 0.5 * (c + AT(g, g->cond, i, j + 1));
      double uc = AT(g, g->u, i, j);
      double flux = ce * (AT(g, g->u, i + 1, j) - uc) - cw * (uc - AT(g, g->u, i - 1, j)) +
                    cs * (AT(g, g->u, i, j + 1) - uc) - cn * (uc - AT(g, g->u, i, j - 1));
      double un = uc + r * flux;
      AT(g, g->unew, i, j) = un;
      change += (un - uc) * (un - uc);
    }
  return change;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int N = argc > 1 ? atoi(argv[1]) : 640;
  const int max_steps = argc > 2 ? atoi(argv[2]) : 1000;
  const int check_every = 10;
  const double tol = 1e-14;

  int dims[2] = {0, 0}, periods[2] = {0, 1}, coords[2];
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  MPI_Cart_coords(cart, rank, 2, coords);

  Grid grid;
  Halo halo;
  grid_init(&grid, N, dims, coords);
  halo_init(&halo, &grid, cart);
  memcpy(grid.unew, grid.u, sizeof(double) * (size_t)(grid.ny + 2) * grid.ld);

  double t_comm = 0.0, t_comp = 0.0, global_norm = 1.0;
  int step;
  for (step = 0; step < max_steps; step++) {
    double t0 = MPI_Wtime();
    exchange_halo(&grid, &halo);
    double t1 = MPI_Wtime();
    double local = stencil(&grid, 0.2, halo.north == MPI_PROC_NULL, halo.south == MPI_PROC_NULL);
    double *tmp = grid.u;
    grid.u = grid.unew;
    grid.unew = tmp;
    t_comp += MPI_Wtime() - t1;
    if (step % check_every == 0) {
      MPI_Allreduce(&local, &global_norm, 1, MPI_DOUBLE, MPI_SUM, cart);
      global_norm = sqrt(global_norm);
      if (global_norm < tol)
        break;
    }
    t_comm += t1 - t0;
  }

  double heat = 0.0, total_heat = 0.0;
  for (int j = 1; j <= grid.ny; j++)
    for (int i = 1; i <= grid.nx; i++)
      heat += AT(&grid, grid.u, i, j);
  MPI_Reduce(&heat, &total_heat, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
  if (rank == 0) {
    printf("halo: %dx%d on %dx%d ranks, %d steps, change %.6e, heat %.12e\n", N, N, dims[0],
           dims[1], step, global_norm, total_heat);
    printf("halo: compute %.3f s, communication %.3f s (rank 0)\n", t_comp, t_comm);
  }
  free(grid.u);
  free(grid.unew);
  free(grid.cond);
  free(halo.send_w);
  free(halo.send_e);
  free(halo.recv_w);
  free(halo.recv_e);
  MPI_Comm_free(&cart);
  MPI_Finalize();
  return 0;
}
