/* The MPI program of tests/interop.rs (ensembles, Cube4, Score-P filters
 * and region classes): every rank updates its share of `field` in compute()
 * (local work: USR), then exchange() sums it with MPI_Allreduce (COM; the
 * MPI library's internals below it: WRP). Rank 0 has more steps, so the
 * other ranks wait inside MPI. argv[1] scales the input size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void compute(double *field, long len, int steps) {
    for (int s = 0; s < steps; s++)
        for (long i = 0; i < len; i++)
            field[i] = field[i] * 0.999 + (double)((i * 7 + s) % 13) * 0.001;
}

static double exchange(const double *field, long len, int rounds) {
    double local = 0.0, global = 0.0;
    for (long i = 0; i < len; i++)
        local += field[i];
    for (int r = 0; r < rounds; r++) {
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        local = global * 0.5;
    }
    return global;
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 1;
    long len = 2000000 * n / size;
    double *field = calloc(len, sizeof(double));
    double total = 0.0;
    for (int it = 0; it < 10; it++) {
        compute(field, len, rank == 0 ? 16 : 10);
        total += exchange(field, len, 50);
    }
    if (rank == 0)
        printf("total = %g\n", total);
    free(field);
    MPI_Finalize();
    return 0;
}
