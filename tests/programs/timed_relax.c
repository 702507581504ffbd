/* A relaxation sweep timed the way solvers time their phases: every sweep
 * reads the clock before and after (clock_gettime, which runs in the vDSO,
 * not in a library on disk), and the residual of each sweep is kept. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 64;
    long sweeps = argc > 2 ? atol(argv[2]) : 3000000;
    double *u = calloc(n, sizeof *u);
    double t_sweep = 0, residual = 1;
    for (long s = 0; s < sweeps; s++) {
        double t0 = now();
        residual = 0;
        for (int i = 1; i < n - 1; i++) {
            double v = 0.5 * (u[i - 1] + u[i + 1]) + 1e-3 * (s & 1);
            residual += (v - u[i]) * (v - u[i]);
            u[i] = v;
        }
        t_sweep += now() - t0;
    }
    printf("%g %g %g\n", u[n / 2], residual, t_sweep);
    free(u);
    return 0;
}
