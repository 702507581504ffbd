/* pic.h - shared declarations of the picgrid particle-in-cell code.
 *
 * The grid is NX columns (periodic in x) by ny_global rows (periodic in y),
 * split into slabs of ny rows per MPI rank. Every grid array holds ny + 2
 * rows of NX values: row 0 and row ny + 1 are ghost rows filled from the
 * neighbouring ranks. The field arrays are globals defined in fields.c; the
 * per-cell particle lists (head/next index arrays) are globals defined in
 * particles.c.
 */
#ifndef PIC_H
#define PIC_H

#include <mpi.h>

#define IDX(j, i) ((j) * nx + (i))

typedef struct {
  double x, y;   /* position in cell units, global coordinates */
  double vx, vy; /* velocity in cells per unit time */
} Particle;

typedef struct {
  Particle *p;   /* the particles this rank owns */
  int n;         /* how many */
  int cap;       /* allocated */
  double q, m;   /* charge and mass of one macro-particle */
} Species;

typedef struct {
  int nx, ny_global, ny;   /* grid: columns, all rows, rows of this rank */
  int y0;                  /* first global row of this rank */
  int ppc;                 /* particles per cell at start */
  int steps, sweeps;       /* time steps, Jacobi sweeps per field solve */
  double dt, v0, vth;      /* time step, beam speed, thermal speed */
  int rank, nprocs, lo, hi;
  MPI_Comm comm;
} Params;

/* fields.c: the global grid arrays and the halo buffers */
extern double *rho, *phi, *phi_new, *ex, *ey;
extern double *sendbuf_lo, *sendbuf_hi, *recvbuf_lo, *recvbuf_hi;
extern int nx, ny;

void fields_alloc(const Params *prm);
void fields_free(void);
void halo_exchange(const Params *prm, double *f);
void unpack_halo(double *f);
void fold_ghost_charge(const Params *prm);
void solve_field(const Params *prm, double background);
void compute_efield(const Params *prm);

/* particles.c: species setup, per-cell lists, deposition, push */
extern int *cell_head, *cell_next;
extern int list_cap;

void particles_init(const Params *prm, Species *s);
void species_reserve(Species *s, int n);
void build_cell_lists(const Params *prm, const Species *s);
void deposit_charge(const Params *prm, const Species *s);
void push_particles(const Params *prm, Species *s);

/* migrate.c: particles leaving the slab */
int migrate_particles(const Params *prm, Species *s);

/* diag.c: energies and their history */
typedef struct {
  double kinetic, field, charge;
  long particles;
} Energies;

Energies compute_energies(const Params *prm, const Species *s);

#endif
