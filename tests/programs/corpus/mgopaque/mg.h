/* mgopaque: the public interface of the multigrid solver. The solver is an
 * opaque handle: callers create it with MG_Create, set parameters, set it
 * up for a matrix and solve with it; they never see its structure. */
#ifndef MGOPAQUE_MG_H
#define MGOPAQUE_MG_H

#include "linalg.h"

typedef struct mg_solver_s *MGSolver;

enum { MG_RELAX_JACOBI = 0, MG_RELAX_GS = 1, MG_RELAX_SGS = 2 };

int MG_Create(MGSolver *solver);
int MG_SetMaxLevels(MGSolver solver, int max_levels);
int MG_SetTol(MGSolver solver, double tol);
int MG_SetMaxIter(MGSolver solver, int max_iter);
int MG_SetRelaxType(MGSolver solver, int relax_type);
int MG_SetNumSweeps(MGSolver solver, int pre, int post);
int MG_SetPrintLevel(MGSolver solver, int level);
int MG_Setup(MGSolver solver, Matrix *A, Vector *b, Vector *x);
int MG_Solve(MGSolver solver, Matrix *A, Vector *b, Vector *x);
int MG_GetNumIterations(MGSolver solver, int *num_iterations);
int MG_GetFinalRelativeResidualNorm(MGSolver solver, double *norm);
int MG_GetNumLevels(MGSolver solver, int *num_levels);
int MG_Destroy(MGSolver solver);

#endif
