// cgbench: the sparse matrix of one level, its halo and its multigrid data.
#ifndef CGBENCH_SPARSEMATRIX_HPP
#define CGBENCH_SPARSEMATRIX_HPP

#include <string>
#include <vector>

#include "geometry.hpp"

typedef std::vector<double> Vector;

// What a rank sends to and receives from its neighbours in z. Received
// values go after the rows the rank owns: columns localNumberOfRows .. .
struct Halo {
  int numberOfNeighbors;
  int neighbors[2];
  local_int_t sendLength[2];
  local_int_t receiveOffset[2];
  local_int_t receiveLength[2];
  std::vector<local_int_t> elementsToSend[2];
  std::vector<double> sendBuffer;
  MPI_Request requests[2];
};

struct SparseMatrix;

// The coarse-grid correction of a level: the injection map from coarse to
// fine rows and the work vectors of the V-cycle.
struct MGData {
  int numberOfPresmootherSteps;
  int numberOfPostsmootherSteps;
  std::vector<local_int_t> f2cOperator;  // coarse row -> fine row
  Vector rc;   // restricted residual (coarse rows)
  Vector xc;   // coarse correction (coarse columns)
  Vector Axf;  // A * x on the fine level (fine columns)
};

// Compressed rows; the diagonal of every row is also indexed.
struct SparseMatrix {
  std::string title;
  Geometry geom;
  global_int_t totalNumberOfRows;
  global_int_t totalNumberOfNonzeros;
  local_int_t localNumberOfRows;
  local_int_t localNumberOfColumns;  // rows plus halo
  local_int_t localNumberOfNonzeros;
  std::vector<local_int_t> rowStart;
  std::vector<local_int_t> colIndex;
  std::vector<double> values;
  std::vector<local_int_t> diagIndex;
  Halo halo;
  SparseMatrix *Ac;  // next coarser level, or nullptr
  MGData *mgData;    // how to get there, or nullptr
};

// The work vectors of the conjugate-gradient iteration.
struct CGData {
  Vector r;   // residual
  Vector z;   // preconditioned residual
  Vector p;   // search direction
  Vector Ap;  // A * p
};

// problem.cpp
void generate_geometry(int size, int rank, local_int_t nx, local_int_t ny, local_int_t nz,
                       Geometry &geom);
void generate_problem(SparseMatrix &A, Vector *b, Vector *x, Vector *xexact);
void generate_coarse_problem(SparseMatrix &Af);
void init_cg_data(const SparseMatrix &A, CGData &data);
void delete_matrix(SparseMatrix &A);

// halo.cpp
void exchange_halo(const SparseMatrix &A, Vector &x);

// kernels.cpp
int dot(local_int_t n, const Vector &x, const Vector &y, double &result, double &time_allreduce);
int waxpby(local_int_t n, double alpha, const Vector &x, double beta, const Vector &y, Vector &w);
int spmv(const SparseMatrix &A, Vector &x, Vector &y);
int symgs(const SparseMatrix &A, const Vector &r, Vector &x);
void zero_vector(Vector &v);

// mg.cpp
int mg_precondition(const SparseMatrix &A, const Vector &r, Vector &x);

// cg.cpp
int cg_solve(const SparseMatrix &A, CGData &data, const Vector &b, Vector &x, int max_iter,
             double tolerance, int &niters, double &normr, double &normr0,
             std::vector<double> &times, bool doPreconditioning);

#endif
