/* A compute-bound MPI program for the busy-node case of bench/overhead.py:
 * every rank relaxes its own block of a 2-D grid (Jacobi, 5-point stencil)
 * and the ranks agree on the residual with an MPI_Allreduce every
 * iteration, as a solver's convergence test does. Call levels: main ->
 * solve -> sweep -> relax_row, and solve -> residual -> MPI_Allreduce.
 * Built with frame pointers as `blame cc` builds programs:
 *   mpicc -g -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer busy_mpi.c -o busy_mpi
 *   mpirun -np $(nproc) ./busy_mpi [ITERATIONS] [N]
 * With BUSY_MPI_COMPUTE=FILE, each rank appends the CPU time its thread spent
 * in the sweeps (the compute, without the waits in MPI_Allreduce) to FILE. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double compute_seconds;

static void __attribute__((noinline)) relax_row(const double *up, const double *row,
                                                const double *down, double *out, int n) {
    for (int j = 1; j < n - 1; j++)
        out[j] = 0.25 * (up[j] + down[j] + row[j - 1] + row[j + 1]);
}

static void __attribute__((noinline)) sweep(const double *u, double *v, int n) {
    for (int i = 1; i < n - 1; i++)
        relax_row(u + (size_t)(i - 1) * n, u + (size_t)i * n, u + (size_t)(i + 1) * n,
                  v + (size_t)i * n, n);
}

static double __attribute__((noinline)) residual(const double *u, const double *v, int n) {
    double local = 0, global = 0;
    for (size_t k = 0; k < (size_t)n * n; k += 7) {
        double d = u[k] - v[k];
        local += d * d;
    }
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return global;
}

static double __attribute__((noinline)) solve(double *u, double *v, int n, int iterations) {
    double r = 0;
    for (int it = 0; it < iterations; it++) {
        double t0 = thread_cpu();
        sweep(u, v, n);
        compute_seconds += thread_cpu() - t0;
        r = residual(u, v, n);
        double *t = u;
        u = v;
        v = t;
    }
    return r;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int iterations = argc > 1 ? atoi(argv[1]) : 400;
    int n = argc > 2 ? atoi(argv[2]) : 512;
    double *u = calloc((size_t)n * n, sizeof *u), *v = calloc((size_t)n * n, sizeof *v);
    if (!u || !v)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int j = 0; j < n; j++)
        u[j] = v[j] = 1.0 + rank;
    double r = solve(u, v, n, iterations);
    if (rank == 0)
        printf("residual %g\n", r);
    const char *path = getenv("BUSY_MPI_COMPUTE");
    if (path) {
        FILE *f = fopen(path, "a");
        if (f) {
            fprintf(f, "%.6f\n", compute_seconds);
            fclose(f);
        }
    }
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
