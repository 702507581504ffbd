/* ftnstyle: a Fortran-77-style solver written in C: global arrays in
 * "common blocks" (extern, defined in another unit) and file-static arrays,
 * `static` function-locals that keep a work buffer across calls (grown with
 * realloc), an array of structs with a nested struct, memcpy/memset of whole
 * arrays, no pointers passed: every routine names the arrays it works on.
 *   usage: ftnstyle [iters]
 *
 * Expected ranking, derived from a by-function profile:
 *   relax_sweep   ~75%  writes field_u (Jacobi sweep into a static work
 *                       buffer, memcpy'd back into field_u)
 *   update_cells  ~20%  writes cells[].st.e, cells[].flux (from field_u)
 *   energy         ~3%  reads cells
 *  1. field_u (a global): the sweeps, i.e. relax_sweep's share;
 *  2. cells (a global) and cells.st / cells.flux: update_cells' share;
 *  3. field_f (the right-hand side, written once at start) stays low;
 *  4. nsweeps, it, t0 (counters, timers) stay low.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"

static double resid_hist[64]; /* file-static */

void relax_sweep(void) {
  static double *work = NULL; /* kept across calls */
  static size_t cap = 0;
  if (cap < (size_t)NCELL) {
    double *w = realloc(work, NCELL * sizeof(double));
    if (!w) abort();
    work = w;
    cap = NCELL;
  }
  memset(work, 0, NCELL * sizeof(double));
  for (int j = 1; j < NY - 1; j++)
    for (int i = 1; i < NX - 1; i++)
      work[j * NX + i] = 0.25 * (field_u[j - 1][i] + field_u[j + 1][i] + field_u[j][i - 1] +
                                 field_u[j][i + 1] - field_f[j][i]);
  for (int j = 1; j < NY - 1; j++)
    memcpy(&field_u[j][1], &work[j * NX + 1], (NX - 2) * sizeof(double));
  resid_hist[nsweeps % 64] = work[NX + 1];
  nsweeps++;
}

void update_cells(double dt) {
  for (int j = 0; j < NY; j++)
    for (int i = 0; i < NX; i++) {
      struct cell *c = &cells[j * NX + i];
      double u = field_u[j][i];
      c->flux[0] = u * c->st.rho;
      c->flux[1] = u * u;
      c->flux[2] = c->flux[0] * dt;
      c->flux[3] = c->flux[1] * dt;
      c->st.e += dt * (c->flux[2] - c->flux[3]) / (c->st.rho + 1.0);
    }
}

double energy(void) {
  double s = 0;
  for (int k = 0; k < NCELL; k++) s += cells[k].st.e * cells[k].st.rho;
  return s;
}
