/* Tall-skinny matrix product in ijk order (dot products, k innermost):
 * C = A B with A of 520 x 120, B of 120 x 16, C of 520 x 16, as when many
 * samples (rows of A) are projected on a small basis (columns of B).
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: B is 120 x 16 doubles =
 * 15 KB; the k loop walks a column of B with a stride of 128 B (every read
 * a different line), but all of B stays in L1 for the whole product, so
 * after its 240 cold lines B never misses. A is 500 KB: row i (960 B, 15
 * lines) is read 16 times in a row (once per j), so it misses once per line
 * per row and then stays. C[i][j] is accumulated in a register and written.
 * B is initialized last, so even its first reads hit.
 * Expected owner of the read misses: `A` ~100%, `B` ~0, `C` ~0. A stride
 * weight alone would give the long-stride B the most. */
#include <stdio.h>
#include <stdlib.h>

static void matmul_ijk(int m, int n, int kk, const double *a, const double *b, double *c) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double sum = 0.0;
            for (int k = 0; k < kk; k++)
                sum += a[i * kk + k] * b[k * n + j];
            c[i * n + j] = sum;
        }
}

static void init_matrix(int rows, int cols, double *x, double scale) {
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            x[i * cols + j] = scale * (i - j);
}

int main(int argc, char **argv) {
    int m = argc > 1 ? atoi(argv[1]) : 520;
    int kk = 120, n = 16;
    double *A = malloc(sizeof(double) * m * kk);
    double *B = malloc(sizeof(double) * kk * n);
    double *C = malloc(sizeof(double) * m * n);
    init_matrix(m, kk, A, 1e-3);
    init_matrix(kk, n, B, 1e-2);
    matmul_ijk(m, n, kk, A, B, C);
    double trace = 0.0;
    for (int i = 0; i < n; i++)
        trace += C[i * n + i];
    printf("%f\n", trace);
    free(A);
    free(B);
    free(C);
    return 0;
}
