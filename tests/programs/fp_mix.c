/* A program built with frame pointers (as `blame cc` builds it) that calls
 * libm and a library built without them (fp_mix_lib.c) from deep in its own
 * call tree: `descend` recurses with 256-byte frames so the stack at a sample
 * is deeper than hybrid mode's 1 KiB copy. Used by tests/record.rs to compare
 * the calling contexts of --call-graph hybrid and dwarf. With `callback`,
 * the library also calls back into the program from a frame that uses rbp
 * for data, which breaks the frame-pointer chain above the callback.
 *   fp_mix [ROUNDS] [callback] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef double (*kernel_fn)(double);
double lib_apply(int n, kernel_fn f);
double lib_sum_sqrt(int n);

static volatile double sink;

static double __attribute__((noinline)) callback(double x) {
    double y = x;
    for (int i = 0; i < 8; i++)
        y = y * 0.999 + sin(y);
    return y;
}

static double __attribute__((noinline)) own_work(int n) {
    double s = 0;
    for (int i = 0; i < n * 200; i++)
        s += (double)i * 1e-9 + s * 1e-12;
    return s + exp(s * 1e-9);
}

static int with_callback;

static void __attribute__((noinline)) fill(char *pad, int n, int v) {
    for (int i = 0; i < n; i++)
        pad[i] = (char)(v + i);
}

static double __attribute__((noinline)) descend(int depth, int rounds) {
    char pad[256];
    fill(pad, sizeof pad, depth);
    if (depth > 0)
        return descend(depth - 1, rounds) + pad[depth];
    double s = 0;
    for (int r = 0; r < rounds; r++) {
        if (with_callback)
            s += lib_apply(4, callback);
        s += lib_sum_sqrt(2000);
        s += own_work(100);
    }
    return s;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    with_callback = argc > 2 && argv[2][0] == 'c';
    sink = descend(12, rounds);
    printf("%g\n", sink);
    return 0;
}
