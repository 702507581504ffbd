/* kernels.c -- 4th-order staggered-grid updates of the velocity-stress
 * system (Virieux 1986, Levander 1988):
 *   rho dv_i/dt     = d s_ij / dx_j
 *   d s_ij / dt     = lam delta_ij d v_k/dx_k + mu (d v_i/dx_j + d v_j/dx_i)
 * with the fields in restrict locals (and IVDEP: clang ignores restrict on
 * locals). Averages after Moczo et al. (2002): arithmetic density at the
 * velocity points, harmonic mu on the edges. */
#include "seis3d.h"

#if defined(__clang__)
#define IVDEP _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define IVDEP _Pragma("GCC ivdep")
#else
#define IVDEP
#endif

#define C1 (9.0f / 8.0f)
#define C2 (-1.0f / 24.0f)

/* Differences of f at cell c along stride s, 4th order:
 *   DF: from integer points to the half point c + 1/2
 *   DB: from half points (index c is c + 1/2) to the integer point c */
#define DF(f, c, s)                                                          \
  (C1 * ((f)[(c) + (s)] - (f)[c]) + C2 * ((f)[(c) + 2 * (s)] - (f)[(c) - (s)]))
#define DB(f, c, s)                                                          \
  (C1 * ((f)[c] - (f)[(c) - (s)]) + C2 * ((f)[(c) + (s)] - (f)[(c) - 2 * (s)]))

/* 4 / (1/a + 1/b + 1/c + 1/d) with one division; for moduli of ~1e10 Pa
 * the product abcd would overflow a float, so cd is divided first */
static inline float hmean4(float a, float b, float c, float d)
{
  const float ab = a * b, cd = c * d;
  const float q = cd / (ab * (c + d) + cd * (a + b));
  return 4.0f * ab * q;
}

void update_velocity(const Grid *g, Wavefield *wf, const Model *m, float dt)
{
  float *restrict vx = wf->vx;
  float *restrict vy = wf->vy;
  float *restrict vz = wf->vz;
  const float *restrict sxx = wf->sxx;
  const float *restrict syy = wf->syy;
  const float *restrict szz = wf->szz;
  const float *restrict sxy = wf->sxy;
  const float *restrict sxz = wf->sxz;
  const float *restrict syz = wf->syz;
  const float *restrict rho_inv = m->rho_inv;

  const size_t sx = 1, sy = (size_t)g->nx, sz = (size_t)g->nx * (size_t)g->ny;
  const float rx = dt / g->dx, ry = dt / g->dy, rz = dt / g->dz;

  for (int k = NGHOST; k < g->nz - NGHOST; k++) {
    for (int j = NGHOST; j < g->ny - NGHOST; j++) {
      const size_t row = IX(g, 0, j, k);
      IVDEP
      for (int i = NGHOST; i < g->nx - NGHOST; i++) {
        const size_t c = row + (size_t)i;
        /* effective buoyancy at the staggered velocity points: the
         * inverse of the mean density of the two cells */
        const float b = rho_inv[c];
        const float bx = 2.0f * b * rho_inv[c + sx] / (b + rho_inv[c + sx]);
        const float by = 2.0f * b * rho_inv[c + sy] / (b + rho_inv[c + sy]);
        const float bz = 2.0f * b * rho_inv[c + sz] / (b + rho_inv[c + sz]);

        vx[c] += bx * (rx * DF(sxx, c, sx) + ry * DB(sxy, c, sy) +
                       rz * DB(sxz, c, sz));
        vy[c] += by * (rx * DB(sxy, c, sx) + ry * DF(syy, c, sy) +
                       rz * DB(syz, c, sz));
        vz[c] += bz * (rx * DB(sxz, c, sx) + ry * DB(syz, c, sy) +
                       rz * DF(szz, c, sz));
      }
    }
  }
}

void update_stress(const Grid *g, Wavefield *wf, const Model *m, float dt)
{
  const float *restrict vx = wf->vx;
  const float *restrict vy = wf->vy;
  const float *restrict vz = wf->vz;
  float *restrict sxx = wf->sxx;
  float *restrict syy = wf->syy;
  float *restrict szz = wf->szz;
  float *restrict sxy = wf->sxy;
  float *restrict sxz = wf->sxz;
  float *restrict syz = wf->syz;
  const float *restrict lam = m->lam;
  const float *restrict mu = m->mu;

  const size_t sx = 1, sy = (size_t)g->nx, sz = (size_t)g->nx * (size_t)g->ny;
  const float rx = dt / g->dx, ry = dt / g->dy, rz = dt / g->dz;

  for (int k = NGHOST; k < g->nz - NGHOST; k++) {
    for (int j = NGHOST; j < g->ny - NGHOST; j++) {
      const size_t row = IX(g, 0, j, k);
      IVDEP
      for (int i = NGHOST; i < g->nx - NGHOST; i++) {
        const size_t c = row + (size_t)i;

        /* normal stresses at the cell centre */
        const float exx = rx * DB(vx, c, sx);
        const float eyy = ry * DB(vy, c, sy);
        const float ezz = rz * DB(vz, c, sz);
        const float tr = lam[c] * (exx + eyy + ezz);
        const float m2 = 2.0f * mu[c];
        sxx[c] += tr + m2 * exx;
        syy[c] += tr + m2 * eyy;
        szz[c] += tr + m2 * ezz;

        /* effective shear moduli on the edges: harmonic means of the
         * four cells around each edge (Moczo et al. 2002) */
        const float mxy =
            hmean4(mu[c], mu[c + sx], mu[c + sy], mu[c + sx + sy]);
        const float mxz =
            hmean4(mu[c], mu[c + sx], mu[c + sz], mu[c + sx + sz]);
        const float myz =
            hmean4(mu[c], mu[c + sy], mu[c + sz], mu[c + sy + sz]);
        sxy[c] += mxy * (ry * DF(vx, c, sy) + rx * DF(vy, c, sx));
        sxz[c] += mxz * (rz * DF(vx, c, sz) + rx * DF(vz, c, sx));
        syz[c] += myz * (rz * DF(vy, c, sz) + ry * DF(vz, c, sy));
      }
    }
  }
}
