/* General matrix product with the output rescaled in place first:
 * C = beta C + alpha A B, loop order i, k, j (j innermost), the arrays
 * two-dimensional with a column count fixed at compile time, the loop
 * bounds run-time arguments (the way BLAS-like reference codes and
 * benchmark suites write it): for each row i, a first pass scales C[i][*],
 * then the k loop accumulates A[i][k] times row k of B into it.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: C is 48 x 96, A 48 x 64,
 * B 64 x 96 doubles (36, 24 and 48 KB). For one i, the rescaling pass
 * brings the row C[i][*] (768 B, 12 lines) into L1, where it stays while
 * the k loop sweeps all of B (48 KB, more than L1, so B misses once per
 * line every i); A[i][k] walks a row of A (8 lines per i). The accumulation
 * line's misses are B's; C misses only in the rescaling pass (and in the
 * checksum).
 * Expected owner of the read misses: `B` ~97%, `C` ~2%, `A` ~1%. */
#include <stdio.h>
#include <stdlib.h>

#ifndef NI /* gemm_large.c includes this file with its own sizes */
#define NI 48
#define NJ 96
#define NK 64
#endif

static void gemm(int ni, int nj, int nk, double alpha, double beta, double c[][NJ],
                 double a[][NK], double b[][NJ]) {
    for (int i = 0; i < ni; i++) {
        for (int j = 0; j < nj; j++)
            c[i][j] *= beta;
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                c[i][j] += alpha * a[i][k] * b[k][j];
    }
}

static void init(int ni, int nj, int nk, double c[][NJ], double a[][NK], double b[][NJ]) {
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            c[i][j] = (double)((i * j + 1) % ni) / ni;
    for (int i = 0; i < ni; i++)
        for (int k = 0; k < nk; k++)
            a[i][k] = (double)(i * (k + 1) % nk) / nk;
    for (int k = 0; k < nk; k++)
        for (int j = 0; j < nj; j++)
            b[k][j] = (double)(k * (j + 2) % nj) / nj;
}

int main(int argc, char **argv) {
    int ni = NI, nj = NJ, nk = NK;
    int reps = argc > 1 ? atoi(argv[1]) : 1;
    double (*c)[NJ] = malloc(sizeof(double) * NI * NJ);
    double (*a)[NK] = malloc(sizeof(double) * NI * NK);
    double (*b)[NJ] = malloc(sizeof(double) * NK * NJ);
    init(ni, nj, nk, c, a, b);
    for (int r = 0; r < reps; r++)
        gemm(ni, nj, nk, 1.5, 1.2, c, a, b);
    double trace = 0.0;
    for (int i = 0; i < ni; i++)
        trace += c[i][i];
    printf("%f\n", trace);
    free(c);
    free(a);
    free(b);
    return 0;
}
