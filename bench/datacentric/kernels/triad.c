/* STREAM triad: three large arrays, one index scalar. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 17;
    int reps = 3;
    double *a = malloc(sizeof(double) * n);
    double *b = malloc(sizeof(double) * n);
    double *c = malloc(sizeof(double) * n);
    double scalar = 3.0;
    for (int i = 0; i < n; i++) {
        b[i] = i;
        c[i] = 2.0 * i;
    }
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < n; i++)
            a[i] = b[i] + scalar * c[i];
    printf("%f\n", a[n / 2]);
    free(a);
    free(b);
    free(c);
    return 0;
}
