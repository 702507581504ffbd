/* Allocation wrappers in the style of hypre's CTAlloc and PETSc's
 * PetscMalloc: a macro over a function of another translation unit. */
#ifndef JACOBI_UTIL_H
#define JACOBI_UTIL_H
#include <stddef.h>

void *xcalloc(size_t count, size_t size, const char *file, int line);
void xfree(void *p);
double wall_time(void);

#define CTAlloc(type, count) ((type *)xcalloc((size_t)(count), sizeof(type), __FILE__, __LINE__))
#define TFree(p) (xfree(p), (p) = NULL)

typedef struct {
  int nx, ny;      /* interior points per side */
  double h2;       /* squared mesh width */
  double omega;    /* damping of the Jacobi update */
  int max_steps;
  double tol;
} Params;

/* kernels.c */
void jacobi_sweep(int nx, int ny, double *restrict unew, const double *restrict u,
                  const double *restrict f, double h2, double omega);
double residual_norm(int nx, int ny, const double *restrict u, const double *restrict f, double h2);
void set_source(int nx, int ny, double *f);
#endif
