/* Square matrix product in jki order on row-major arrays (the loop order
 * of a Fortran code ported to C without swapping the indices):
 * C += A B, n = 100; for each column j, for each k, the i loop walks a
 * column of C and a column of A with a stride of one row (800 B).
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: each matrix is 80 KB.
 * For one j, the i loop touches 100 lines of C's column j, read again for
 * every k (they stay in L1, and serve the next 7 columns j too: 8 doubles
 * per line), and 100 lines of A's column k, which are reused by the next
 * 7 k while still cached; over all k, all of A (80 KB) is swept: A misses
 * once per line per j. B[k][j] walks a column of B once per j (100 lines,
 * evicted by A's sweep before the next j).
 * Expected owner of the read misses: `A` ~92%, `B` ~7%, `C` ~1%.
 * Both A and C are read with the 800 B stride; only A's lines are not
 * reused. */
#include <stdio.h>
#include <stdlib.h>

static void matmul_jki(int n, const double *a, const double *b, double *c) {
    for (int j = 0; j < n; j++)
        for (int k = 0; k < n; k++) {
            double bkj = b[k * n + j];
            for (int i = 0; i < n; i++)
                c[i * n + j] += a[i * n + k] * bkj;
        }
}

static void init_matrix(int n, double *x, double scale) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x[i * n + j] = scale * (2 * i - j);
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *A = malloc(sizeof(double) * n * n);
    double *B = malloc(sizeof(double) * n * n);
    double *C = calloc((size_t)n * n, sizeof(double));
    init_matrix(n, A, 1e-3);
    init_matrix(n, B, 2e-3);
    matmul_jki(n, A, B, C);
    double trace = 0.0;
    for (int i = 0; i < n; i++)
        trace += C[i * n + i];
    printf("%f\n", trace);
    free(A);
    free(B);
    free(C);
    return 0;
}
