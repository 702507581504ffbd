/* Side effects (Figure 3.12), calls through function pointers, and
 * recursion, each doing real work. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* dst takes its value from src: a side effect the caller must see. */
static void copy_into(double *dst, const double *src, int n) {
    for (int i = 0; i < n; i++)
        dst[i] = src[i] * 1.5;
}

static void fill(double *src, int n, int seed) {
    for (int i = 0; i < n; i++)
        src[i] = sin(i * 0.001 * seed) * cos(i * 0.002);
}

static void stage(double *x, double *y, int n, int seed) {
    fill(y, n, seed);
    copy_into(x, y, n);
    x[0] = 0;
}

typedef void (*kernel_fn)(double *, int);

static void square_all(double *v, int n) {
    for (int i = 0; i < n; i++)
        v[i] = v[i] * v[i] + exp(-fabs(v[i]));
}

static void halve_all(double *v, int n) {
    for (int i = 0; i < n; i++)
        v[i] = v[i] * 0.5;
}

static void sum_tree(const double *v, int lo, int hi, double *acc) {
    if (hi - lo <= 64) {
        for (int i = lo; i < hi; i++)
            *acc += sqrt(fabs(v[i]));
        return;
    }
    int mid = (lo + hi) / 2;
    sum_tree(v, lo, mid, acc);
    sum_tree(v, mid, hi, acc);
}

int main(int argc, char **argv) {
    int n = 1 << 14;
    int rounds = argc > 1 ? atoi(argv[1]) : 1500;
    double *result = malloc(sizeof(double) * n);
    double *scratch = malloc(sizeof(double) * n);
    double *work = malloc(sizeof(double) * n);
    kernel_fn kernels[2] = {square_all, halve_all};
    double total = 0;
    for (int i = 0; i < n; i++)
        work[i] = i * 1e-4;
    for (int r = 0; r < rounds; r++) {
        stage(result, scratch, n, r + 1);
        kernels[r % 2](work, n);
        sum_tree(result, 0, n, &total);
    }
    printf("%f %f %f\n", result[5], work[7], total);
    free(result);
    free(scratch);
    free(work);
    return 0;
}
