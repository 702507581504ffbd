/* kinetics.c - the reaction table and the chemical source terms.
 *
 * The rate of reaction r is kf[r] * c[r0] * c[r1] (a missing reactant
 * counts as 1, a third-body reaction is scaled by the dilution); each
 * reaction consumes its reactants, makes its products and releases q. The
 * temperature equation is dT/dt = sum(q * rate) / sum(cv * c).
 */
#include "kinetics.h"

#include <math.h>
#include <stdlib.h>

static void add(Mechanism *m, double A, double beta, double Ta, double q,
                int r0, int r1, int p0, int p1) {
  Reaction *r = &m->reac[m->nreac++];
  r->A = A;
  r->beta = beta;
  r->Ta = Ta;
  r->q = q;
  r->r[0] = r0;
  r->r[1] = r1;
  r->p[0] = p0;
  r->p[1] = p1;
}

void mechanism_init(Mechanism *m) {
  static const char *names[NSPEC] = {"H2", "O2", "H", "O", "OH", "H2O", "HO2", "N2"};
  static const double cv[NSPEC] = {0.6, 0.6, 0.4, 0.4, 0.6, 0.75, 0.9, 0.6};
  m->nreac = 0;
  for (int s = 0; s < NSPEC; s++) {
    m->names[s] = names[s];
    m->cv[s] = cv[s];
  }
  /* chain initiation, branching and propagation */
  add(m, 2.0e3, 0.0, 40.0, -4.0, S_H2, -1, S_H, S_H);
  add(m, 8.0e2, 0.0, 8.0, -0.7, S_H, S_O2, S_OH, S_O);
  add(m, 6.0e1, 1.0, 4.0, 0.1, S_O, S_H2, S_OH, S_H);
  add(m, 3.0e2, 0.5, 2.0, 0.6, S_OH, S_H2, S_H2O, S_H);
  add(m, 1.0e2, 0.5, 9.0, -0.6, S_H2O, S_H, S_OH, S_H2);
  add(m, 2.0e2, 1.0, 1.0, -0.1, S_OH, S_OH, S_H2O, S_O);
  /* recombination (third body) */
  add(m, 1.5e2, -0.8, 0.0, 2.0, S_H, S_O2, S_HO2, -1);
  add(m, 4.0e2, 0.0, 0.5, 1.6, S_HO2, S_H, S_OH, S_OH);
  add(m, 3.0e2, 0.0, 0.2, 2.2, S_HO2, S_OH, S_H2O, S_O2);
  add(m, 5.0e1, -1.0, 0.0, 4.0, S_H, S_OH, S_H2O, -1);
  add(m, 2.0e1, -0.5, 0.0, 4.3, S_H, S_H, S_H2, -1);
  add(m, 1.0e1, -0.5, 0.0, 4.9, S_O, S_O, S_O2, -1);
  add(m, 3.0e1, -0.5, 0.0, 4.2, S_O, S_H, S_OH, -1);
  add(m, 2.0e1, 0.0, 12.0, -2.0, S_HO2, -1, S_H, S_O2);
}

void kin_ctx_init(KinCtx *kin, const Mechanism *mech) {
  kin->mech = mech;
  kin->kf = calloc((size_t)mech->nreac, sizeof(double));
  kin->rate = calloc((size_t)mech->nreac, sizeof(double));
  kin->dilution = 1.0;
  kin->calls = 0;
}

void kin_ctx_free(KinCtx *kin) {
  free(kin->kf);
  free(kin->rate);
  kin->kf = kin->rate = NULL;
}

static int third_body(const Reaction *r) { return r->p[1] < 0; }

void kinetics_rhs(double t, const double *y, double *dydt, void *ctx) {
  KinCtx *kin = ctx;
  const Mechanism *mech = kin->mech;
  const double T = y[I_T] > 0.05 ? y[I_T] : 0.05;
  const double logT = log(T);
  (void)t;
  kin->calls++;
  for (int r = 0; r < mech->nreac; r++) {
    const Reaction *rx = &mech->reac[r];
    kin->kf[r] = rx->A * exp(rx->beta * logT - rx->Ta / T);
  }
  for (int r = 0; r < mech->nreac; r++) {
    const Reaction *rx = &mech->reac[r];
    double w = kin->kf[r];
    for (int k = 0; k < 2; k++)
      if (rx->r[k] >= 0)
        w *= fmax(y[rx->r[k]], 0.0);
    if (third_body(rx))
      w *= kin->dilution;
    kin->rate[r] = w;
  }
  for (int v = 0; v < NVAR; v++)
    dydt[v] = 0.0;
  double heat = 0.0;
  for (int r = 0; r < mech->nreac; r++) {
    const Reaction *rx = &mech->reac[r];
    const double w = kin->rate[r];
    for (int k = 0; k < 2; k++) {
      if (rx->r[k] >= 0)
        dydt[rx->r[k]] -= w;
      if (rx->p[k] >= 0)
        dydt[rx->p[k]] += w;
    }
    heat += rx->q * w;
  }
  double cvmix = 0.0;
  for (int s = 0; s < NSPEC; s++)
    cvmix += mech->cv[s] * fmax(y[s], 0.0);
  dydt[I_T] = heat / fmax(cvmix, 1e-6);
}
