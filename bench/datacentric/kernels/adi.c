/* Alternating-direction implicit (Peaceman-Rachford) steps of the 2-D heat
 * equation on a 180 x 180 grid, row-major. Each step is two half steps,
 * each a tridiagonal solve (Thomas algorithm) per grid line:
 *  - row sweep, implicit along j: forward elimination along each row
 *    writes p[i][j], q[i][j] from p[i][j-1], q[i][j-1] (written one
 *    iteration earlier) and the explicit part from u[i-1..i+1][j]; back
 *    substitution writes v[i][j] from v[i][j+1] (just written), p, q;
 *  - column sweep, implicit along i, all columns at once row by row:
 *    forward elimination writes p[i][j], q[i][j] from p[i-1][j], q[i-1][j]
 *    (the previous row, just written) and the explicit part from
 *    v[i][j-1..j+1]; back substitution, rows from the bottom up, writes
 *    u[i][j] from u[i+1][j] (the row just written), p[i][j], q[i][j].
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: each grid is 180 x 180
 * doubles = 253 KB, a row 1.4 KB (23 lines). Reads of what the same or the
 * previous iteration, or the previous row, wrote hit in L1, and so do u's
 * rows i-1 and i in the row sweep (read for the previous row). What misses:
 * the row sweep reads u's row i+1 (new); the column sweep's forward pass
 * reads v's row (written a half step ago, 253 KB earlier); its back
 * substitution reads p and q rows written in the forward pass, bottom up,
 * a whole grid earlier. Expected owner of the read misses: `u` ~25%,
 * `v` ~25%, `p` ~25%, `q` ~25%; no misses on p[i][j-1], q[i][j-1],
 * v[i][j+1], p[i-1][j], q[i-1][j], u[i+1][j] in the back substitution. */
#include <stdio.h>
#include <stdlib.h>

struct coefficients {
    double a, b, c; /* implicit tridiagonal: a x[k-1] + b x[k] + c x[k+1] */
    double e, f;    /* explicit part: e y[k-1] + f y[k] + e y[k+1] */
};

/* Half step implicit along rows: v from u. Boundary values stay fixed. */
static void row_sweep(int n, const struct coefficients *k, const double *u, double *v,
                      double *p, double *q) {
    for (int i = 1; i < n - 1; i++) {
        p[i * n + 0] = 0.0;
        q[i * n + 0] = v[i * n + 0];
        for (int j = 1; j < n - 1; j++) {
            double den = k->a * p[i * n + j - 1] + k->b;
            p[i * n + j] = -k->c / den;
            q[i * n + j] = (k->e * u[(i - 1) * n + j] + k->f * u[i * n + j] +
                            k->e * u[(i + 1) * n + j] - k->a * q[i * n + j - 1]) / den;
        }
        for (int j = n - 2; j >= 1; j--)
            v[i * n + j] = p[i * n + j] * v[i * n + j + 1] + q[i * n + j];
    }
}

/* Half step implicit along columns: u from v, all columns together. */
static void column_sweep(int n, const struct coefficients *k, const double *v, double *u,
                         double *p, double *q) {
    for (int j = 1; j < n - 1; j++) {
        p[0 * n + j] = 0.0;
        q[0 * n + j] = u[0 * n + j];
    }
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++) {
            double den = k->a * p[(i - 1) * n + j] + k->b;
            p[i * n + j] = -k->c / den;
            q[i * n + j] = (k->e * v[i * n + j - 1] + k->f * v[i * n + j] +
                            k->e * v[i * n + j + 1] - k->a * q[(i - 1) * n + j]) / den;
        }
    for (int i = n - 2; i >= 1; i--)
        for (int j = 1; j < n - 1; j++)
            u[i * n + j] = p[i * n + j] * u[(i + 1) * n + j] + q[i * n + j];
}

static void initial_condition(int n, double *u, double *v) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            int edge = i == 0 || j == 0 || i == n - 1 || j == n - 1;
            u[i * n + j] = edge ? 1.0 : 0.0;
            v[i * n + j] = u[i * n + j];
        }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 180;
    int steps = 3;
    double r = 0.4; /* diffusion number of a half step */
    struct coefficients k = {-r, 1.0 + 2.0 * r, -r, r, 1.0 - 2.0 * r};
    double *u = malloc(sizeof(double) * n * n);
    double *v = malloc(sizeof(double) * n * n);
    double *p = malloc(sizeof(double) * n * n);
    double *q = malloc(sizeof(double) * n * n);
    initial_condition(n, u, v);
    for (int step = 0; step < steps; step++) {
        row_sweep(n, &k, u, v, p, q);
        column_sweep(n, &k, v, u, p, q);
    }
    printf("%f %f\n", u[2 * n + n / 2], u[(n / 2) * n + n / 2]);
    free(u);
    free(v);
    free(p);
    free(q);
    return 0;
}
