/* A library built without frame pointers (-O2 -fomit-frame-pointer), as
 * libc, libm, MPI and BLAS are: two levels of its own frames, one of which
 * calls back into the program. Used by tests/record.rs (hybrid vs dwarf). */
#include <math.h>

typedef double (*kernel_fn)(double);

static double __attribute__((noinline)) lib_inner(const double *v, int n, kernel_fn f) {
    double s = 0;
    for (int i = 0; i < n; i++)
        s += f(v[i]) + exp(v[i] * 1e-3);
    return s;
}

double __attribute__((noinline)) lib_apply(int n, kernel_fn f) {
    double v[64];
    for (int i = 0; i < 64; i++)
        v[i] = i * 0.5;
    double s = 0;
    for (int r = 0; r < n; r++)
        s += lib_inner(v, 64, f);
    return s;
}

double __attribute__((noinline)) lib_sum_sqrt(int n) {
    double s = 0;
    for (int i = 1; i <= n; i++)
        s += sqrt((double)i) * log((double)i);
    return s;
}
