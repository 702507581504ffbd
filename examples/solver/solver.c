/* blame demo: an explicit 1-D heat solver with its state as a struct of
 * arrays, distributed over MPI ranks; every CHECK_EVERY steps the ranks sum
 * their residuals with MPI_Allreduce.
 *
 *   blame cc -- mpicc -g -O2 -c solver.c -o solver.o
 *   mpicc -g solver.o -o solver -lm
 *   blame record -o run -- mpirun -np 2 ./solver [steps]
 *   blame report run --by-variable
 *
 * What to expect: update() is the hottest loop and writes grid.u,
 * compute_rhs() writes grid.rhs, and the residual is computed from both.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_EVERY 20

typedef struct {
    double *u;   /* temperature */
    double *rhs; /* right-hand side of the update */
    double *k;   /* conductivity */
    int n;
} Grid;

typedef struct {
    Grid grid;
    double dt;
    double residual;
    int steps;
} Solver;

static void grid_init(Grid *g, int n, int rank) {
    g->n = n;
    g->u = malloc(sizeof(double) * n);
    g->rhs = malloc(sizeof(double) * n);
    g->k = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        g->u[i] = sin(0.001 * (i + rank * n));
        g->k[i] = 1.0 + 0.5 * cos(0.01 * i);
        g->rhs[i] = 0.0;
    }
}

static void compute_rhs(Grid *g) {
    for (int i = 1; i < g->n - 1; i++)
        g->rhs[i] = g->k[i] * (g->u[i - 1] - 2.0 * g->u[i] + g->u[i + 1]);
}

static void update(Grid *g, double dt) {
    for (int i = 1; i < g->n - 1; i++)
        g->u[i] += dt * g->rhs[i] + 1e-12 * sqrt(fabs(g->u[i]));
}

static double local_residual(const Grid *g) {
    double r = 0.0;
    for (int i = 0; i < g->n; i++)
        r += g->rhs[i] * g->rhs[i];
    return r;
}

static void solve(Solver *s) {
    for (int step = 1; step <= s->steps; step++) {
        compute_rhs(&s->grid);
        update(&s->grid, s->dt);
        if (step % CHECK_EVERY == 0) {
            double local = local_residual(&s->grid);
            MPI_Allreduce(&local, &s->residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Solver s;
    s.dt = 0.1;
    s.steps = argc > 1 ? atoi(argv[1]) : 3000;
    s.residual = 0.0;
    grid_init(&s.grid, 1 << 17, rank);
    solve(&s);
    if (rank == 0)
        printf("residual after %d steps on %d ranks: %.6g\n", s.steps, size, sqrt(s.residual));
    free(s.grid.u);
    free(s.grid.rhs);
    free(s.grid.k);
    MPI_Finalize();
    return 0;
}
