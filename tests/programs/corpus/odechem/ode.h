/* ode.h - a generic adaptive explicit Runge-Kutta integrator (Cash-Karp
 * embedded 4(5) pair) for systems dy/dt = f(t, y).
 *
 * The integrator is an opaque object made by ode_create(): it owns its
 * stage vectors and error estimate (allocated once) and keeps statistics
 * of the work it has done. The right-hand side is a function pointer that
 * gets the caller's context through a void pointer, as in CVODE, SUNDIALS
 * ARKode or the GSL odeiv2 interface.
 */
#ifndef ODE_H
#define ODE_H

typedef void (*ode_rhs_fn)(double t, const double *y, double *dydt, void *ctx);

typedef struct OdeIntegrator OdeIntegrator;

/* Work done by an integrator since it was made or last reset. */
typedef struct {
  long steps;        /* accepted steps */
  long rejected;     /* steps rejected by the error test */
  long rhs_evals;    /* calls of the right-hand side */
  long integrations; /* calls of ode_integrate */
  long failures;     /* integrations that hit the step limit */
  double t_step;     /* seconds spent in ode_integrate, all in */
  double t_max;      /* the longest integration (the stiffest cell) */
} OdeStats;

/* n unknowns; relative and absolute tolerances; smallest step allowed. */
OdeIntegrator *ode_create(int n, double rtol, double atol, double hmin);
void ode_destroy(OdeIntegrator *ode);

/* Integrates y from t0 to t1 in place. *h is the first step to try and,
 * on return, the step the controller suggests next (callers keep it per
 * system). Returns 0 on success, -1 when max_steps was reached. */
int ode_integrate(OdeIntegrator *ode, ode_rhs_fn rhs, void *ctx, double t0,
                  double t1, double *y, double *h);

void ode_set_max_steps(OdeIntegrator *ode, long max_steps);
const OdeStats *ode_stats(const OdeIntegrator *ode);
void ode_reset_stats(OdeIntegrator *ode);

#endif
