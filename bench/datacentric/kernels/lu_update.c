/* Blocked right-looking LU factorization without pivoting (the matrix is
 * diagonally dominant) of a 144 x 144 row-major matrix, block size 8: the
 * panel of 8 columns is factored in place, the block row to its right is
 * solved, both are packed into contiguous buffers (L21: m x 8, U12: 8 x m),
 * and the trailing matrix gets the update A22 -= L21 U12 in ikj order:
 * for each row i, for each t, A[i][j] -= L[i][t] * U[t][j] over j.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: the packed U12 is at
 * most 8 x 152 doubles = 9.7 KB and is read in full for every row i: it
 * stays in L1 during the update. The trailing matrix (up to 148 KB) is
 * swept once per block step: each row segment misses once per line and
 * is then reused by the 8 values of t. The packed L21 is read one 64 B row
 * per i (about one miss per i, packing wrote it a sweep earlier); U12 was
 * written by its packing just before the update and never misses.
 * Expected owner of the read misses: `a` ~95% (update, panel factorization
 * and solve), `lpanel` ~5%, `upanel` ~0. */
#include <stdio.h>
#include <stdlib.h>

#define NB 8

/* Unblocked LU of the m x nb panel at p (leading dimension ld), in place. */
static void factor_panel(int m, int nb, double *p, int ld) {
    for (int j = 0; j < nb; j++) {
        double pivot = p[j * ld + j];
        for (int i = j + 1; i < m; i++) {
            double l = p[(size_t)i * ld + j] / pivot;
            p[(size_t)i * ld + j] = l;
            for (int t = j + 1; t < nb; t++)
                p[(size_t)i * ld + t] -= l * p[j * ld + t];
        }
    }
}

/* U12 = L11^-1 A12 for the nb x nc block row to the right of the panel. */
static void solve_block_row(int nb, int nc, const double *l11, double *a12, int ld) {
    for (int t = 1; t < nb; t++)
        for (int s = 0; s < t; s++) {
            double l = l11[t * ld + s];
            for (int j = 0; j < nc; j++)
                a12[t * ld + j] -= l * a12[s * ld + j];
        }
}

static void pack(int rows, int cols, const double *src, int ld, double *dst) {
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            dst[i * cols + j] = src[(size_t)i * ld + j];
}

/* A22 -= L21 U12: l is m x nb, u is nb x nc, both packed. */
static void update_trailing(int m, int nc, int nb, const double *l, const double *u,
                            double *a22, int ld) {
    for (int i = 0; i < m; i++) {
        double *row = a22 + (size_t)i * ld;
        for (int t = 0; t < nb; t++) {
            double lit = l[i * nb + t];
            for (int j = 0; j < nc; j++)
                row[j] -= lit * u[t * nc + j];
        }
    }
}

static void make_dominant(int n, double *a) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            a[(size_t)i * n + j] = 1.0 / (2.0 + ((3 * i + 5 * j) & 15));
        a[(size_t)i * n + i] = n;
    }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 144;
    double *a = malloc(sizeof(double) * n * n);
    double *lpanel = malloc(sizeof(double) * n * NB);
    double *upanel = malloc(sizeof(double) * n * NB);
    make_dominant(n, a);
    for (int k = 0; k < n; k += NB) {
        int nb = n - k < NB ? n - k : NB;
        double *akk = a + (size_t)k * n + k;
        factor_panel(n - k, nb, akk, n);
        int m = n - k - nb;
        if (m == 0)
            break;
        solve_block_row(nb, m, akk, akk + nb, n);
        pack(m, nb, akk + (size_t)nb * n, n, lpanel);
        pack(nb, m, akk + nb, n, upanel);
        update_trailing(m, m, nb, lpanel, upanel, akk + (size_t)nb * n + nb, n);
    }
    double prod = 0.0;
    for (int i = 0; i < n; i++)
        prod += a[(size_t)i * n + i];
    printf("%f\n", prod);
    free(a);
    free(lpanel);
    free(upanel);
    return 0;
}
