/* mdlink: data structures and interfaces shared by the translation units of
 * the Lennard-Jones molecular-dynamics code (main.c, setup.c, comm.c,
 * neighbor.c, force.c, integrate.c). */
#ifndef MDLINK_MD_H
#define MDLINK_MD_H

#include <mpi.h>

/* Slots of the global timer array (defined in main.c). */
enum {
  TIME_TOTAL = 0,
  TIME_FORCE,
  TIME_NEIGH,
  TIME_COMM,
  TIME_INTEGRATE,
  TIME_THERMO,
  TIME_SETUP,
  TIME_OTHER
};
extern double timers[8];

/* Run parameters, read from the command line. */
typedef struct Params {
  int nx, ny, nz;        /* FCC unit cells of the global lattice per direction */
  int nsteps;            /* time steps */
  int reneigh_every;     /* steps between neighbour-list builds */
  int thermo_every;      /* steps between energy reductions */
  double rho;            /* reduced density */
  double temp0;          /* initial temperature */
  double dt;             /* time step */
  double cutforce;       /* force cut-off */
  double skin;           /* neighbour-list skin */
  double mass, epsilon, sigma;
} Params;

/* The atoms this rank owns (0 .. nlocal-1) followed by its ghost copies
 * (nlocal .. nlocal+nghost-1). Three doubles per atom in x, v and f. */
typedef struct Atoms {
  int nlocal, nghost, nmax;
  long natoms;           /* global count */
  double *x;             /* positions */
  double *v;             /* velocities (local atoms only) */
  double *f;             /* forces */
  double box[3];         /* global box lengths */
  double lo[3], hi[3];   /* this rank's sub-box */
} Atoms;

/* Link cells over the sub-box and its ghost layer: head[c] is the first atom
 * of cell c, next[i] the atom after i in the same cell (-1 ends a chain). */
typedef struct CellList {
  int nc[3], ncells;
  double origin[3], cellsize[3];
  int *head;
  int *next;
  int maxatoms;
  int nstencil;
  int stencil[27];
} CellList;

/* Half neighbour list of the local atoms, maxneighs slots per atom. */
typedef struct NeighList {
  int maxlocal, maxneighs;
  int *numneigh;
  int *neighbors;
  double cutneigh, cutneighsq;
} NeighList;

/* The swaps of the ghost communication: two per dimension. Swaps whose
 * partner is this rank itself are copies with a periodic shift. */
#define MAXSWAP 6
typedef struct Comm {
  MPI_Comm comm;
  int me, nprocs;
  int procneigh[2];               /* left, right partner in x */
  int nswap;
  int sendproc[MAXSWAP], recvproc[MAXSWAP];
  int sendnum[MAXSWAP], recvnum[MAXSWAP], firstrecv[MAXSWAP];
  double pbc[MAXSWAP][3];         /* shift applied to what is sent */
  int *sendlist[MAXSWAP];
  int maxsendlist[MAXSWAP];
  double *buf_send, *buf_recv;
  int maxsend, maxrecv;
  MPI_Request req[4];
} Comm;

/* Counters and thermodynamic statistics of the run. */
typedef struct Stats {
  long npairs;             /* neighbour pairs visited by the force loop */
  long nbuilds;            /* neighbour-list builds */
  long nmigrated;          /* atoms sent to another rank */
  int nghost_max;
  int nthermo;
  double pe, ke, temp, press;
  double etot0;            /* total energy at step 0 */
  double drift_max;        /* largest relative energy drift seen */
  double temp_sum, temp_sqsum;
} Stats;

/* main.c */
double wall_time(void);

/* setup.c */
void atoms_grow(Atoms *atoms, int nmax);
void create_box(Atoms *atoms, const Params *p, const Comm *comm);
void create_atoms(Atoms *atoms, const Params *p);
void create_velocities(Atoms *atoms, const Params *p, Comm *comm);

/* comm.c */
void comm_setup(Comm *comm, const Atoms *atoms, double cutneigh);
void comm_pbc(Atoms *atoms);
void comm_exchange(Comm *comm, Atoms *atoms, Stats *st);
void comm_borders(Comm *comm, Atoms *atoms, double cutneigh);
void comm_forward(Comm *comm, Atoms *atoms);

/* neighbor.c */
void cells_setup(CellList *cl, const Atoms *atoms, double cutneigh);
void cells_bin(CellList *cl, const Atoms *atoms);
void neighbor_init(NeighList *nl, double cutneigh);
void neighbor_build(NeighList *nl, const CellList *cl, const Atoms *atoms);

/* force.c */
double force_lj(Atoms *atoms, const NeighList *nl, const Params *p, double *virial,
                long *npairs);

/* integrate.c */
void initial_integrate(Atoms *atoms, const Params *p);
void final_integrate(Atoms *atoms, const Params *p);
void thermo(const Atoms *atoms, const Params *p, Comm *comm, double pe_local, double virial_local,
            int step, Stats *st);

#endif
