/* kinetics.h - a reduced hydrogen-oxygen mechanism in nondimensional form:
 * a table of elementary reactions with modified Arrhenius rate constants
 * k = A T^beta exp(-Ta / T), and the right-hand side of the species and
 * temperature equations of a constant-volume reactor in one cell.
 */
#ifndef KINETICS_H
#define KINETICS_H

enum { S_H2, S_O2, S_H, S_O, S_OH, S_H2O, S_HO2, S_N2, NSPEC };
#define NVAR (NSPEC + 1) /* the species, then the temperature */
#define I_T NSPEC
#define MAX_REAC 32

typedef struct {
  double A, beta, Ta; /* Arrhenius parameters */
  double q;           /* heat released per unit of progress */
  int r[2], p[2];     /* reactant and product species (-1: none) */
} Reaction;

typedef struct {
  int nreac;
  Reaction reac[MAX_REAC];
  double cv[NSPEC]; /* heat capacity per unit concentration */
  const char *names[NSPEC];
} Mechanism;

/* What the right-hand side reads and its scratch: passed as void * through
 * the integrator. */
typedef struct {
  const Mechanism *mech;
  double *kf;   /* rate constants at the current temperature (nreac) */
  double *rate; /* reaction rates (nreac) */
  double dilution; /* third-body efficiency of the cell */
  long calls;      /* right-hand side evaluations */
} KinCtx;

void mechanism_init(Mechanism *mech);
void kin_ctx_init(KinCtx *kin, const Mechanism *mech);
void kin_ctx_free(KinCtx *kin);

/* The ode_rhs_fn of the integrator; ctx is a KinCtx. */
void kinetics_rhs(double t, const double *y, double *dydt, void *ctx);

#endif
