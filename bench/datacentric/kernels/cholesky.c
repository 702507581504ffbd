/* Blocked right-looking Cholesky factorization A = L L^T of a 176 x 176
 * symmetric positive definite matrix (row-major, lower triangle), block
 * size 8: factor the diagonal block, solve the panel below it, pack the
 * panel into a contiguous buffer, then update the trailing matrix with one
 * rank-1 update per panel column:  B[r][s] -= P[r][t] * P[s][t]  (s <= r).
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: the packed panel holds
 * at most 168 rows x 8 doubles = 10.8 KB, one 64 B row per line, and is
 * read down its column t (stride 64 B) for every r: it stays in L1 for the
 * whole update. The trailing lower triangle of `a` is up to 113 KB and is
 * swept once per panel column t: it misses once per line per sweep.
 * Expected owner of the read misses: `a` ~96% (update sweeps, panel
 * solve and packing), `panel` ~4% (a row per line at the first column t
 * of each update: packing wrote it, the sweeps of `a` evicted it). A
 * weight by stride alone (64 B for the panel column, 8 B for the matrix
 * row) inverts this. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NB 8

/* In-place Cholesky of the nb x nb diagonal block at d (leading dimension ld). */
static int factor_diagonal(int nb, double *d, int ld) {
    for (int j = 0; j < nb; j++) {
        double djj = d[j * ld + j];
        for (int t = 0; t < j; t++)
            djj -= d[j * ld + t] * d[j * ld + t];
        if (djj <= 0.0)
            return -1;
        djj = sqrt(djj);
        d[j * ld + j] = djj;
        for (int i = j + 1; i < nb; i++) {
            double dij = d[i * ld + j];
            for (int t = 0; t < j; t++)
                dij -= d[i * ld + t] * d[j * ld + t];
            d[i * ld + j] = dij / djj;
        }
    }
    return 0;
}

/* Rows below the diagonal block: L21 = A21 L11^-T, row by row. */
static void solve_panel(int m, int nb, const double *l11, double *a21, int ld) {
    for (int r = 0; r < m; r++) {
        double *row = a21 + (size_t)r * ld;
        for (int j = 0; j < nb; j++) {
            double x = row[j];
            for (int t = 0; t < j; t++)
                x -= row[t] * l11[j * ld + t];
            row[j] = x / l11[j * ld + j];
        }
    }
}

static void pack_panel(int m, int nb, const double *a21, int ld, double *panel) {
    for (int r = 0; r < m; r++)
        for (int t = 0; t < nb; t++)
            panel[r * nb + t] = a21[(size_t)r * ld + t];
}

/* Lower triangle of B -= P P^T, one rank-1 update per column of P. */
static void update_trailing(int m, int nb, const double *p, double *b, int ldb) {
    for (int t = 0; t < nb; t++)
        for (int r = 0; r < m; r++) {
            double prt = p[r * nb + t];
            for (int s = 0; s <= r; s++)
                b[(size_t)r * ldb + s] -= prt * p[s * nb + t];
        }
}

static void make_spd(int n, double *a) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            double v = 1.0 / (1.0 + i - j) + 0.01 * ((i * j) & 7);
            a[(size_t)i * n + j] = v;
            a[(size_t)j * n + i] = v;
        }
        a[(size_t)i * n + i] = n + 1.0;
    }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 176;
    double *a = malloc(sizeof(double) * n * n);
    double *panel = malloc(sizeof(double) * n * NB);
    make_spd(n, a);
    for (int k = 0; k < n; k += NB) {
        int nb = n - k < NB ? n - k : NB;
        double *akk = a + (size_t)k * n + k;
        if (factor_diagonal(nb, akk, n) != 0) {
            fprintf(stderr, "not positive definite at %d\n", k);
            return 1;
        }
        int m = n - k - nb;
        if (m == 0)
            break;
        solve_panel(m, nb, akk, akk + (size_t)nb * n, n);
        pack_panel(m, nb, akk + (size_t)nb * n, n, panel);
        update_trailing(m, nb, panel, akk + (size_t)nb * n + nb, n);
    }
    double logdet = 0.0;
    for (int i = 0; i < n; i++)
        logdet += 2.0 * log(a[(size_t)i * n + i]);
    printf("%f\n", logdet);
    free(a);
    free(panel);
    return 0;
}
