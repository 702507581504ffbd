/* Out-of-place matrix transpose: column-strided writes, row reads, plus a
 * small global lookup table. */
#include <stdio.h>
#include <stdlib.h>

static double scale_table[64];

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 384;
    double *src = malloc(sizeof(double) * n * n);
    double *dst = malloc(sizeof(double) * n * n);
    for (int k = 0; k < 64; k++)
        scale_table[k] = 1.0 + k * 0.01;
    for (int i = 0; i < n * n; i++)
        src[i] = i;
    for (int rep = 0; rep < 2; rep++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                dst[j * n + i] = src[i * n + j] * scale_table[j & 63];
    printf("%f\n", dst[n + 1]);
    free(src);
    free(dst);
    return 0;
}
