/* grid.h -- the local grid of one rank, the wavefield and the material
 * model of seis3d. All 3D arrays are flat float arrays over the local grid
 * *including* its ghost layers, x fastest, indexed through IX. */
#ifndef SEIS3D_GRID_H
#define SEIS3D_GRID_H

#include <stddef.h>

#define NGHOST 2 /* half-width of the 4th-order staggered stencil */

/* Cell (i,j,k) of a grid, ghost layers counted: 0 <= i < g->nx etc. */
#define IX(g, i, j, k) (((size_t)(k) * (g)->ny + (j)) * (g)->nx + (i))

typedef struct {
  int nx, ny, nz;    /* allocated extents, ghost layers included */
  int nxi, nyi, nzi; /* interior cells owned by this rank */
  int nz_global;     /* interior planes of the whole model */
  int z0;            /* global index of this rank's first interior plane */
  size_t ncell;      /* nx * ny * nz */
  float dx, dy, dz;  /* spacing (m) */
  int rank, nranks;
  int up, down; /* neighbours in z (shallower / deeper), or MPI_PROC_NULL */
} Grid;

/* Velocity-stress wavefield on the staggered grid:
 *   sxx, syy, szz at (i, j, k)        vx at (i+1/2, j, k)
 *   sxy at (i+1/2, j+1/2, k)          vy at (i, j+1/2, k)
 *   sxz at (i+1/2, j, k+1/2)          vz at (i, j, k+1/2)
 *   syz at (i, j+1/2, k+1/2)                                          */
typedef struct {
  float *vx, *vy, *vz, *sxx, *syy, *szz, *sxy, *sxz, *syz;
} Wavefield;

#define NVEL 3
#define NSTRESS 6

/* Isotropic elastic medium: buoyancy 1/rho and the Lame parameters. */
typedef struct {
  float *rho_inv, *lam, *mu;
  float vp_max; /* over all ranks: the time step's limit */
} Model;

void grid_init(Grid *g, int nx, int ny, int nz_global, float h, int rank,
               int nranks);
int grid_owns_plane(const Grid *g, int kglobal);
void wavefield_alloc(const Grid *g, Wavefield *wf);
void wavefield_free(Wavefield *wf);
void model_alloc(const Grid *g, Model *m);
void model_free(Model *m);
void model_build(const Grid *g, Model *m);
float *field_alloc(const Grid *g);

#endif
