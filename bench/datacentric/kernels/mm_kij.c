/* Square matrix product in kij order (outer-product form, j innermost):
 * C += A B, n = 100, row-major: for each k, C += A(:,k) B(k,:).
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: each matrix is 80 KB.
 * For one k, the i loop sweeps all of C (80 KB, read and written, more than
 * L1): C misses once per line per k. The row B[k][*] (800 B) is read for
 * every i and stays in L1. A[i][k] walks a column of A (100 lines per k,
 * evicted by the sweep of C before the next k can reuse them).
 * Expected owner of the read misses: `C` ~92%, `A` ~7%, `B` ~1%. */
#include <stdio.h>
#include <stdlib.h>

static void matmul_kij(int n, const double *a, const double *b, double *c) {
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++) {
            double aik = a[i * n + k];
            for (int j = 0; j < n; j++)
                c[i * n + j] += aik * b[k * n + j];
        }
}

static void init_matrix(int n, double *x, double scale) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x[i * n + j] = scale * (i - 3 * j);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *A = malloc(sizeof(double) * n * n);
    double *B = malloc(sizeof(double) * n * n);
    double *C = calloc((size_t)n * n, sizeof(double));
    init_matrix(n, A, 1e-3);
    init_matrix(n, B, 2e-3);
    matmul_kij(n, A, B, C);
    double trace = 0.0;
    for (int i = 0; i < n; i++)
        trace += C[i * n + i];
    printf("%f\n", trace);
    free(A);
    free(B);
    free(C);
    return 0;
}
