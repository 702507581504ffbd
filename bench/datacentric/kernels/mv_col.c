/* y += alpha A x with A column-major (Fortran layout, leading dimension
 * lda), in the column-oriented "axpy" form of the reference BLAS: for each
 * column j, y += (alpha x[j]) A(:,j). A is 300 x 1600: a short y, a long x.
 * Used here as the accumulation of a weighted sum of 1600 basis vectors of
 * length 300, done twice with different weights.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: A is 3.8 MB, streamed
 * once per call (each column 2.4 KB, read once); y is 300 doubles = 2.4 KB
 * (38 lines), read and written for every column, so it stays in L1; x is
 * 12.5 KB read once per column (one miss per 8 columns, ~0.3% of A's).
 * Expected owner of the read misses: `basis` (A) ~99.5%, `coeff` (x)
 * ~0.4%, `acc` (y) ~0. */
#include <stdio.h>
#include <stdlib.h>

static void dgemv_n(int m, int n, double alpha, const double *a, int lda,
                    const double *x, double *y) {
    for (int j = 0; j < n; j++) {
        double temp = alpha * x[j];
        if (temp != 0.0) {
            for (int i = 0; i < m; i++)
                y[i] += temp * a[i + (size_t)j * lda];
        }
    }
}

static void init_basis(int m, int n, double *a, int lda) {
    for (int j = 0; j < n; j++) {
        double *col = a + (size_t)j * lda;
        for (int i = 0; i < m; i++)
            col[i] = (i - j) * 1e-3;
    }
}

int main(int argc, char **argv) {
    int m = 300;
    int n = argc > 1 ? atoi(argv[1]) : 1600;
    int lda = m;
    double *basis = malloc(sizeof(double) * (size_t)lda * n);
    double *coeff = malloc(sizeof(double) * n);
    double *acc = calloc(m, sizeof(double));
    init_basis(m, n, basis, lda);
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; j < n; j++)
            coeff[j] = 1.0 / (1 + j + pass);
        dgemv_n(m, n, pass ? -0.5 : 1.0, basis, lda, coeff, acc);
    }
    double norm = 0.0;
    for (int i = 0; i < m; i++)
        norm += acc[i] * acc[i];
    printf("%f\n", norm);
    free(basis);
    free(coeff);
    free(acc);
    return 0;
}
