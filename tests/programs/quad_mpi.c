/* A QUAD_MPI-like quadrature (dissertation 4.1.2): rank 0 broadcasts the
 * problem size, every rank integrates its share, MPI_Reduce sums into quad. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double f(const double *x, int dim_num) {
    double value = 1.0;
    for (int d = 0; d < dim_num; d++)
        value *= 1.0 / (1.0 + x[d] * x[d]) + 0.5 * sin(x[d]);
    return value;
}

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dim_num = 0;
    long point_num = 0;
    if (rank == 0) {
        dim_num = 6;
        point_num = argc > 1 ? atol(argv[1]) : 4000000;
    }
    MPI_Bcast(&dim_num, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&point_num, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    double *x = malloc(sizeof(double) * dim_num);
    double w = 1.0 / (double)point_num;
    double quad_part = 0.0;
    for (long i = rank; i < point_num; i += size) {
        for (int d = 0; d < dim_num; d++)
            x[d] = (double)((i * (d + 3)) % 1000) / 1000.0;
        quad_part += w * f(x, dim_num);
    }
    double quad = 0.0;
    MPI_Reduce(&quad_part, &quad, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("quad = %f\n", quad);
    free(x);
    MPI_Finalize();
    return 0;
}
