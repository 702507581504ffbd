/* Work that scales differently with the input size n, for `blame diff` and
 * `blame scaling`: `field` is relaxed 1600*n sweeps (linear in n),
 * `coeffs` a fixed number of sweeps whatever n, so field's share of the run
 * grows with n while coeffs' shrinks. */
#include <stdio.h>
#include <stdlib.h>

#define LEN 4096
#define SWEEPS_PER_N 1600
#define FIXED_SWEEPS 8000

__attribute__((noinline)) static void relax(double *field, long len, long sweeps) {
    for (long s = 0; s < sweeps; s++)
        for (long i = 1; i < len - 1; i++)
            field[i] = 0.5 * field[i] + 0.25 * (field[i - 1] + field[i + 1]);
}

__attribute__((noinline)) static void smooth(double *coeffs, long len, long sweeps) {
    for (long s = 0; s < sweeps; s++)
        for (long i = 1; i < len - 1; i++)
            coeffs[i] = 0.25 * coeffs[i] + 0.375 * (coeffs[i - 1] + coeffs[i + 1]);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1;
    double *field = malloc(LEN * sizeof *field);
    double *coeffs = malloc(LEN * sizeof *coeffs);
    for (long i = 0; i < LEN; i++) {
        field[i] = (double)(i % 17);
        coeffs[i] = (double)(i % 5);
    }
    relax(field, LEN, n * SWEEPS_PER_N);
    smooth(coeffs, LEN, FIXED_SWEEPS);
    double sum = 0.0;
    for (long i = 0; i < LEN; i++)
        sum += field[i] + coeffs[i];
    printf("n=%ld sum=%g\n", n, sum);
    free(field);
    free(coeffs);
    return 0;
}
