/* The two products of a BiCG iteration fused into one sweep of A:
 * q = A p and s = A^T r, row-major A of 1100 x 300, repeated for two
 * iterations (p and r change between them, A does not).
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: A is 1100 x 300 doubles
 * = 2.6 MB, streamed once per call; s (length 300, 2.4 KB) is read and
 * written for every row and p (2.4 KB) read for every row: both stay in L1;
 * r[i] and q[i] are touched once per row (8.8 KB each, one miss per 8
 * rows). Expected owner of the read misses: `A` ~99%, `r` ~0.3%, `q`
 * ~0.3%, `s` and `p` ~0. */
#include <stdio.h>
#include <stdlib.h>

static void bicg_products(int m, int n, const double *A, const double *p,
                          const double *r, double *q, double *s) {
    for (int j = 0; j < n; j++)
        s[j] = 0.0;
    for (int i = 0; i < m; i++) {
        double qi = 0.0;
        double ri = r[i];
        for (int j = 0; j < n; j++) {
            s[j] += ri * A[i * n + j];
            qi += A[i * n + j] * p[j];
        }
        q[i] = qi;
    }
}

int main(int argc, char **argv) {
    int m = argc > 1 ? atoi(argv[1]) : 1100;
    int n = 300;
    double *A = malloc(sizeof(double) * m * n);
    double *p = malloc(sizeof(double) * n);
    double *r = malloc(sizeof(double) * m);
    double *q = malloc(sizeof(double) * m);
    double *s = malloc(sizeof(double) * n);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            A[i * n + j] = (double)(i - 3 * j) / (m * n);
    for (int j = 0; j < n; j++)
        p[j] = 1.0 / (j + 1);
    for (int i = 0; i < m; i++)
        r[i] = (i % 5) * 0.25;
    double rho = 0.0;
    for (int iter = 0; iter < 2; iter++) {
        bicg_products(m, n, A, p, r, q, s);
        /* The next directions from the products (a caricature of the update). */
        rho = 0.0;
        for (int j = 0; j < n; j++) {
            p[j] = 0.5 * p[j] + 1e-3 * s[j];
            rho += s[j] * p[j];
        }
        for (int i = 0; i < m; i += 8)
            r[i] -= 1e-3 * q[i];
    }
    printf("%f %f\n", rho, q[m / 2]);
    free(A);
    free(p);
    free(r);
    free(q);
    free(s);
    return 0;
}
