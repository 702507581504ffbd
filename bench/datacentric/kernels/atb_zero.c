/* Product with a transposed operand into a zeroed output: C = A^T B, n x n
 * row-major matrices indexed by hand (`a[k * n + i]`, n known at run
 * time), loop order i, k, j: for each row i, a first pass zeroes C[i][*],
 * then the k loop accumulates A[k][i] (a column of A: A^T's row i) times
 * row k of B into it.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: n = 112, each matrix
 * 98 KB. For one i, the zeroing pass writes the row C[i][*] (896 B, 14
 * lines), which then stays in L1 while the k loop sweeps all of B (98 KB,
 * more than L1: B misses once per line every i) and walks column i of A at
 * a stride of 896 B (112 lines, evicted by B's sweep before column i + 1
 * could reuse them). The zeroing pass only writes, so C's reads in the
 * accumulation hit; C's read misses are the checksum's.
 * Expected owner of the read misses: `B` ~93%, `A` ~7%, `C` < 1%. */
#include <stdio.h>
#include <stdlib.h>

static void atb(int n, const double *a, const double *b, double *c) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            c[i * n + j] = 0.0;
        for (int k = 0; k < n; k++)
            for (int j = 0; j < n; j++)
                c[i * n + j] += a[k * n + i] * b[k * n + j];
    }
}

static void init_matrix(int n, double *x, double scale) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x[i * n + j] = scale * ((i + 3 * j) % 17);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 112;
    double *A = malloc(sizeof(double) * n * n);
    double *B = malloc(sizeof(double) * n * n);
    double *C = malloc(sizeof(double) * n * n);
    init_matrix(n, A, 1e-2);
    init_matrix(n, B, 3e-2);
    atb(n, A, B, C);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += C[i * n + (i * 7) % n];
    printf("%f\n", sum);
    free(A);
    free(B);
    free(C);
    return 0;
}
