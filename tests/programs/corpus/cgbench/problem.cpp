// cgbench: the 27-point operator on a box of grid points, its halo, and the
// coarser levels of the multigrid hierarchy.
#include <cstdio>
#include <cstdlib>

#include "SparseMatrix.hpp"

void generate_geometry(int size, int rank, local_int_t nx, local_int_t ny, local_int_t nz,
                       Geometry &geom) {
  geom.size = size;
  geom.rank = rank;
  geom.nx = nx;
  geom.ny = ny;
  geom.nz = nz;
  geom.gnz = (global_int_t)nz * size;
  geom.iz0 = (global_int_t)nz * rank;
}

static void setup_halo(SparseMatrix &A) {
  const Geometry &g = A.geom;
  const local_int_t plane = g.nx * g.ny;
  Halo &h = A.halo;
  h.numberOfNeighbors = 0;
  local_int_t offset = A.localNumberOfRows;
  if (g.rank > 0) {  // the slab below: send our first plane, receive its last
    int k = h.numberOfNeighbors++;
    h.neighbors[k] = g.rank - 1;
    h.receiveOffset[k] = offset;
    h.receiveLength[k] = plane;
    h.sendLength[k] = plane;
    h.elementsToSend[k].resize(plane);
    for (local_int_t i = 0; i < plane; i++)
      h.elementsToSend[k][i] = i;
    offset += plane;
  }
  if (g.rank < g.size - 1) {  // the slab above
    int k = h.numberOfNeighbors++;
    h.neighbors[k] = g.rank + 1;
    h.receiveOffset[k] = offset;
    h.receiveLength[k] = plane;
    h.sendLength[k] = plane;
    h.elementsToSend[k].resize(plane);
    for (local_int_t i = 0; i < plane; i++)
      h.elementsToSend[k][i] = (g.nz - 1) * plane + i;
    offset += plane;
  }
  A.localNumberOfColumns = offset;
  h.sendBuffer.resize(2 * (size_t)plane);
}

// Column of grid point (ix, iy, iz) in local numbering; iz may be -1 or nz
// (the halo planes). Returns -1 outside the global grid.
static local_int_t column_of(const SparseMatrix &A, local_int_t ix, local_int_t iy,
                             local_int_t iz) {
  const Geometry &g = A.geom;
  if (ix < 0 || ix >= g.nx || iy < 0 || iy >= g.ny)
    return -1;
  global_int_t gz = g.iz0 + iz;
  if (gz < 0 || gz >= g.gnz)
    return -1;
  if (iz < 0)
    return A.halo.receiveOffset[0] + iy * g.nx + ix;
  if (iz >= g.nz)
    return A.halo.receiveOffset[A.halo.numberOfNeighbors - 1] + iy * g.nx + ix;
  return (iz * g.ny + iy) * g.nx + ix;
}

void generate_problem(SparseMatrix &A, Vector *b, Vector *x, Vector *xexact) {
  const Geometry &g = A.geom;
  const local_int_t nrow = g.nx * g.ny * g.nz;
  A.title = "27-point operator";
  A.localNumberOfRows = nrow;
  A.totalNumberOfRows = (global_int_t)g.nx * g.ny * g.gnz;
  A.Ac = nullptr;
  A.mgData = nullptr;
  setup_halo(A);

  A.rowStart.assign(nrow + 1, 0);
  A.colIndex.clear();
  A.values.clear();
  A.colIndex.reserve(27 * (size_t)nrow);
  A.values.reserve(27 * (size_t)nrow);
  A.diagIndex.assign(nrow, 0);
  if (b) b->assign(A.localNumberOfColumns, 0.0);
  if (x) x->assign(A.localNumberOfColumns, 0.0);
  if (xexact) xexact->assign(A.localNumberOfColumns, 0.0);

  for (local_int_t iz = 0; iz < g.nz; iz++)
    for (local_int_t iy = 0; iy < g.ny; iy++)
      for (local_int_t ix = 0; ix < g.nx; ix++) {
        local_int_t row = (iz * g.ny + iy) * g.nx + ix;
        int nnz = 0;
        for (int dz = -1; dz <= 1; dz++)
          for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
              local_int_t col = column_of(A, ix + dx, iy + dy, iz + dz);
              if (col < 0)
                continue;
              if (col == row) {
                A.diagIndex[row] = (local_int_t)A.values.size();
                A.values.push_back(26.0);
              } else {
                A.values.push_back(-1.0);
              }
              A.colIndex.push_back(col);
              nnz++;
            }
        A.rowStart[row + 1] = (local_int_t)A.values.size();
        if (b) (*b)[row] = 26.0 - (double)(nnz - 1);
        if (xexact) (*xexact)[row] = 1.0;
      }
  A.localNumberOfNonzeros = (local_int_t)A.values.size();
  long long local_nnz = A.localNumberOfNonzeros, total_nnz = 0;
  MPI_Allreduce(&local_nnz, &total_nnz, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  A.totalNumberOfNonzeros = total_nnz;
}

// Coarsen by two in every direction; the coarse operator is the same
// stencil on the coarse grid, and coarse point (i, j, k) is fine point
// (2i, 2j, 2k).
void generate_coarse_problem(SparseMatrix &Af) {
  const Geometry &gf = Af.geom;
  if (gf.nx % 2 || gf.ny % 2 || gf.nz % 2) {
    std::fprintf(stderr, "cgbench: %dx%dx%d cannot be coarsened\n", gf.nx, gf.ny, gf.nz);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  SparseMatrix *Ac = new SparseMatrix;
  generate_geometry(gf.size, gf.rank, gf.nx / 2, gf.ny / 2, gf.nz / 2, Ac->geom);
  generate_problem(*Ac, nullptr, nullptr, nullptr);

  MGData *mg = new MGData;
  mg->numberOfPresmootherSteps = 1;
  mg->numberOfPostsmootherSteps = 1;
  const Geometry &gc = Ac->geom;
  mg->f2cOperator.resize(Ac->localNumberOfRows);
  for (local_int_t iz = 0; iz < gc.nz; iz++)
    for (local_int_t iy = 0; iy < gc.ny; iy++)
      for (local_int_t ix = 0; ix < gc.nx; ix++) {
        local_int_t c = (iz * gc.ny + iy) * gc.nx + ix;
        mg->f2cOperator[c] = ((2 * iz) * gf.ny + 2 * iy) * gf.nx + 2 * ix;
      }
  mg->rc.assign(Ac->localNumberOfRows, 0.0);
  mg->xc.assign(Ac->localNumberOfColumns, 0.0);
  mg->Axf.assign(Af.localNumberOfColumns, 0.0);
  Af.Ac = Ac;
  Af.mgData = mg;
}

void init_cg_data(const SparseMatrix &A, CGData &data) {
  data.r.assign(A.localNumberOfColumns, 0.0);
  data.z.assign(A.localNumberOfColumns, 0.0);
  data.p.assign(A.localNumberOfColumns, 0.0);
  data.Ap.assign(A.localNumberOfColumns, 0.0);
}

void delete_matrix(SparseMatrix &A) {
  if (A.Ac) {
    delete_matrix(*A.Ac);
    delete A.Ac;
    A.Ac = nullptr;
  }
  delete A.mgData;
  A.mgData = nullptr;
}
