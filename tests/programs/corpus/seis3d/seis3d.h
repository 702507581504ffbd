/* seis3d.h -- the solver's modules: kernels and sponge, halo exchange,
 * acquisition (source, receivers) and output. */
#ifndef SEIS3D_H
#define SEIS3D_H

#include "grid.h"

/* Cerjan-style absorbing sponge: a damping factor per plane of each axis,
 * 1 inside, decaying towards the outer faces of the model. */
typedef struct {
  int width;           /* cells of sponge on each absorbing face */
  float *px, *py, *pz; /* profiles over the allocated extents */
} Sponge;

typedef enum { HALO_VELOCITY = 0, HALO_STRESS = 1 } HaloGroup;

typedef struct {
  int gi, gj, gk; /* global interior cell of the source */
  int local;      /* this rank owns the cell */
  size_t cell;    /* its index in the local fields when local */
  float f0;       /* peak frequency of the Ricker wavelet (Hz) */
  float t0;       /* delay of its peak (s) */
  float m0;       /* seismic moment (N m) */
} Source;

/* Stations: a shallow line along x and a vertical borehole array (VSP).
 * traces holds nrec x nt samples of vz, row-major by station; a rank
 * records the stations it owns and leaves zeros for the others. */
typedef struct {
  int nrec, nt;
  int *gi, *gj, *gk; /* global interior cells */
  size_t *cell;      /* local index, or (size_t)-1 when not owned */
  float *traces;
} Receivers;

enum { PH_VELOCITY, PH_STRESS, PH_SPONGE, PH_HALO, PH_SURVEY, NPHASE };

/* kernels.c, sponge.c */
void update_velocity(const Grid *g, Wavefield *wf, const Model *m, float dt);
void update_stress(const Grid *g, Wavefield *wf, const Model *m, float dt);
void sponge_build(const Grid *g, Sponge *sp, int width, float strength);
void sponge_apply(const Grid *g, Wavefield *wf, const Sponge *sp);
void sponge_free(Sponge *sp);

/* halo.c */
void halo_init(const Grid *g);
void halo_exchange(const Grid *g, Wavefield *wf, HaloGroup group);
void halo_free(void);
double halo_bytes(void);

/* source.c, receivers.c */
float ricker(float t, float f0, float t0);
void source_init(const Grid *g, Source *src, int gi, int gj, int gk, float f0,
                 float m0);
void source_inject(const Grid *g, Wavefield *wf, const Source *src, float t,
                   float dt);
void receivers_init(const Grid *g, Receivers *rec, int nline, int nwell,
                    int margin, int nt);
void receivers_record(const Receivers *rec, const Wavefield *wf, int it);
float *receivers_gather(const Receivers *rec, int root);
void receivers_free(Receivers *rec);

/* io.c */
void energy_norm(const Grid *g, const Wavefield *wf, const Model *m,
                 double e[2]);
void print_trace_summary(const float *all, const Receivers *rec, int nline,
                         float dt);
void print_timers(const double t_phase[NPHASE], double t_total, int nsteps,
                  double halo_bytes);

#endif
