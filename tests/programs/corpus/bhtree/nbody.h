/* nbody.h: bodies, the global simulation parameters and the run records of
 * the Barnes-Hut code. */
#ifndef BHTREE_NBODY_H
#define BHTREE_NBODY_H

#include <mpi.h>

/* one body owned by this rank (array of structs) */
typedef struct {
  double pos[3];
  double vel[3];
  double acc[3];
  double mass;
  double pot; /* potential at the body, from the same tree walk */
} Body;

/* physical and numerical parameters, set once by params_setup */
typedef struct {
  double theta;  /* opening angle */
  double eps;    /* Plummer softening length */
  double dt;     /* time step */
  double G;      /* gravitational constant */
  double theta2; /* theta^2, used by the opening test */
  double eps2;   /* eps^2 */
} SimParams;

extern SimParams sim; /* defined in params.c */

/* counters kept over the run */
typedef struct {
  long nodes_last, nodes_max;
  int depth_max;
  long interactions_last, interactions_total;
  int nforce; /* force evaluations counted */
} RunStats;

/* params.c */
void params_setup(double theta, double eps, double dt);

/* init.c */
void two_clusters(Body *bodies, int n, int first, int nlocal);

/* integrate.c */
void kick(Body *bodies, int nlocal, double h);
void drift(Body *bodies, int nlocal, double h);

/* comm.c */
void decompose(int n, int nranks, int *counts, int *displs);
void pack_local(const Body *bodies, int nlocal, double *sendbuf);
void gather_positions(const double *sendbuf, int nsend, double *gpos,
                      const int *counts, const int *displs, MPI_Comm comm);

/* diag.c */
void energy(const Body *bodies, int nlocal, MPI_Comm comm, double *ekin,
            double *epot);
void momentum(const Body *bodies, int nlocal, MPI_Comm comm, double p[3]);
double cluster_separation(const Body *bodies, int nlocal, int first, int n,
                          MPI_Comm comm);
void force_error_sample(const Body *bodies, int nlocal, int first,
                        const double *gpos, int n, int nsample, MPI_Comm comm,
                        double *err_mean, double *err_max);
void report_timers(double t_build, double t_walk, double t_comm,
                   double t_total, int rank, MPI_Comm comm);

#endif
