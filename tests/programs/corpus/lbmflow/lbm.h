/* lbm.h: D2Q9 lattice Boltzmann on x-slabs: the domain, the lattice layout
 * (structure of arrays, one ghost column at each end of the slab) and the
 * kernels of lattice.c, domain.c and collide.c. */
#ifndef LBM_H
#define LBM_H

#include <stddef.h>

#define Q 9

/* cell types of the obstacle mask */
enum { FLUID = 0, WALL = 1, OBSTACLE = 2 };

/* The global configuration: set once by domain_setup, read everywhere. */
typedef struct {
  int nx, ny;             /* global lattice; rows 0 and ny-1 are walls */
  int nx_local, x0;       /* this slab: global columns x0 .. x0+nx_local-1 */
  int rank, nranks;
  int left, right;        /* neighbour ranks or MPI_PROC_NULL */
  double u_max;           /* peak of the parabolic inlet profile */
  double reynolds, nu, omega;
  double cyl_x, cyl_y, cyl_r;
  int steps, out_every;
} Domain;

extern Domain g_dom;

/* D2Q9 velocity set: 0 rest, 1-4 axis, 5-8 diagonal */
extern const int CX[Q], CY[Q], OPP[Q];
extern const double W[Q];

typedef struct {
  int nx_tot, ny_tot;     /* nx_local + 2 ghost columns, ny rows */
  double *f;              /* Q planes of ny_tot * nx_tot doubles */
} Lattice;

/* distribution q of local column x (0 and nx_local+1 are ghosts), row y */
#define F(l, q, x, y) \
  ((l)->f[((size_t)(q) * (size_t)(l)->ny_tot + (size_t)(y)) * (size_t)(l)->nx_tot + (size_t)(x)])
/* index of a cell in the obstacle mask and the macroscopic fields */
#define CELL(x, y) ((size_t)(y) * (size_t)(g_dom.nx_local + 2) + (size_t)(x))

/* domain.c */
int domain_setup(int nx, int ny, double reynolds, double u_max, int steps,
                 int out_every, int rank, int nranks);
unsigned char *obstacle_create(void);
double inlet_velocity(int y);

/* lattice.c */
Lattice *lattice_create(int nx_local, int ny);
void lattice_free(Lattice *lat);
void equilibrium(double rho, double ux, double uy, double feq[Q]);
void lattice_init(Lattice *lat, const unsigned char *solid);

/* collide.c */
void apply_boundaries(Lattice *lat);
void collide_stream(const Lattice *src, Lattice *dst, const unsigned char *solid);

#endif
