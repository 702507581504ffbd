/* Histogram with indirect updates: keys select bins at random. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1 << 18;
    int bins = 1 << 15;
    unsigned *keys = malloc(sizeof(unsigned) * n);
    double *weight = malloc(sizeof(double) * n);
    double *hist = calloc(bins, sizeof(double));
    unsigned seed = 7;
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        keys[i] = seed;
        weight[i] = (i & 3) + 0.5;
    }
    for (int rep = 0; rep < 2; rep++)
        for (int i = 0; i < n; i++)
            hist[keys[i] % bins] += weight[i];
    printf("%f\n", hist[bins / 2]);
    free(keys);
    free(weight);
    free(hist);
    return 0;
}
