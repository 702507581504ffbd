/* Square matrix product in ikj order (row-wise axpy, j innermost):
 * C += A B, n = 100, row-major.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: each matrix is 100 x 100
 * doubles = 80 KB. For one i, the k loop sweeps all of B (80 KB, row by
 * row, more than L1): B misses once per line, every i. The row C[i][*]
 * (800 B, 13 lines) is read and written for every k and stays in L1; A[i][k]
 * is loop-invariant in the j loop and walks a row of A (13 lines per i).
 * Expected owner of the read misses: `B` ~98%, `A` ~1%, `C` ~1%. */
#include <stdio.h>
#include <stdlib.h>

static void matmul_ikj(int n, const double *a, const double *b, double *c) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < n; k++) {
            double aik = a[i * n + k];
            for (int j = 0; j < n; j++)
                c[i * n + j] += aik * b[k * n + j];
        }
}

static void init_matrix(int n, double *x, double scale) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x[i * n + j] = scale * (i + 2 * j);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *A = malloc(sizeof(double) * n * n);
    double *B = malloc(sizeof(double) * n * n);
    double *C = calloc((size_t)n * n, sizeof(double));
    init_matrix(n, A, 1e-3);
    init_matrix(n, B, 2e-3);
    matmul_ikj(n, A, B, C);
    double trace = 0.0;
    for (int i = 0; i < n; i++)
        trace += C[i * n + i];
    printf("%f\n", trace);
    free(A);
    free(B);
    free(C);
    return 0;
}
