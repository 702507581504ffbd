/* mgopaque: the setup phase: geometric coarsening of the grid, bilinear
 * interpolation, Galerkin coarse operators R A P, per-level work vectors
 * and relaxation data. */
#include <stdio.h>
#include <stdlib.h>

#include "mg_impl.h"

/* Interpolation from the (nxf-1)/2 x (nyf-1)/2 coarse grid to the nxf x nyf
 * fine grid: coarse point (I, J) is fine point (2I+1, 2J+1). */
Matrix *mg_build_interpolation(int nxf, int nyf) {
  const int nxc = (nxf - 1) / 2, nyc = (nyf - 1) / 2;
  Matrix *P = MatrixCreate(nxf * nyf, nxc * nyc, 4 * nxf * nyf);
  int pos = 0;
  for (int j = 0; j < nyf; j++)
    for (int i = 0; i < nxf; i++) {
      int ci[2], cj[2], ni = 0, nj = 0;
      double wi[2], wj[2];
      if (i % 2 == 1) {
        ci[ni] = (i - 1) / 2;
        wi[ni++] = 1.0;
      } else {
        if (i / 2 - 1 >= 0) {
          ci[ni] = i / 2 - 1;
          wi[ni++] = 0.5;
        }
        if (i / 2 < nxc) {
          ci[ni] = i / 2;
          wi[ni++] = 0.5;
        }
      }
      if (j % 2 == 1) {
        cj[nj] = (j - 1) / 2;
        wj[nj++] = 1.0;
      } else {
        if (j / 2 - 1 >= 0) {
          cj[nj] = j / 2 - 1;
          wj[nj++] = 0.5;
        }
        if (j / 2 < nyc) {
          cj[nj] = j / 2;
          wj[nj++] = 0.5;
        }
      }
      P->rowptr[j * nxf + i] = pos;
      for (int b = 0; b < nj; b++)
        for (int a = 0; a < ni; a++) {
          P->colind[pos] = cj[b] * nxc + ci[a];
          P->values[pos++] = wi[a] * wj[b];
        }
    }
  P->rowptr[nxf * nyf] = pos;
  P->nnz = pos;
  return P;
}

static int can_coarsen(const mg_solver *s, const Matrix *A, int level) {
  if (level + 1 >= s->max_levels)
    return 0;
  if (A->nx < 3 || A->ny < 3 || A->nx % 2 == 0 || A->ny % 2 == 0)
    return 0;
  return A->nrows > s->min_coarse_size;
}

int MG_Setup(MGSolver solver, Matrix *A, Vector *b, Vector *x) {
  mg_solver *s = (mg_solver *)solver;
  double t0 = mg_wtime();
  const int L = s->max_levels;
  s->A_l = calloc((size_t)L, sizeof(Matrix *));
  s->P_l = calloc((size_t)L, sizeof(Matrix *));
  s->R_l = calloc((size_t)L, sizeof(Matrix *));
  s->x_l = calloc((size_t)L, sizeof(Vector *));
  s->b_l = calloc((size_t)L, sizeof(Vector *));
  s->r_l = calloc((size_t)L, sizeof(Vector *));
  s->relax_data_l = calloc((size_t)L, sizeof(void *));
  s->level_relax_time = calloc((size_t)L, sizeof(double));
  s->resid_norms = calloc((size_t)s->max_iter + 1, sizeof(double));

  s->A_l[0] = A;
  s->b_l[0] = b;
  s->x_l[0] = x;
  s->r_l[0] = VectorCreate(A->nrows);
  int level = 0;
  while (can_coarsen(s, s->A_l[level], level)) {
    Matrix *Af = s->A_l[level];
    Matrix *P = mg_build_interpolation(Af->nx, Af->ny);
    Matrix *R = MatrixTranspose(P);
    Matrix *AP = MatrixMultiply(Af, P);
    Matrix *Ac = MatrixMultiply(R, AP);
    MatrixDestroy(AP);
    Ac->nx = (Af->nx - 1) / 2;
    Ac->ny = (Af->ny - 1) / 2;
    s->P_l[level] = P;
    s->R_l[level] = R;
    level++;
    s->A_l[level] = Ac;
    s->x_l[level] = VectorCreate(Ac->nrows);
    s->b_l[level] = VectorCreate(Ac->nrows);
    s->r_l[level] = VectorCreate(Ac->nrows);
  }
  s->num_levels = level + 1;
  for (int l = 0; l < s->num_levels; l++)
    s->relax_data_l[l] = s->relax->create(s->A_l[l], s->relax_weight);

  s->setup_time += mg_wtime() - t0;
  if (s->print_level > 0) {
    printf("MG setup: %d levels (%s relaxation):", s->num_levels, s->relax->name);
    for (int l = 0; l < s->num_levels; l++)
      printf(" %d/%d", s->A_l[l]->nrows, s->A_l[l]->nnz);
    printf(" rows/nonzeros, %.3f s\n", s->setup_time);
  }
  return 0;
}
