/* 2-D five-point stencil with a per-column coefficient. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 256;
    double *in = malloc(sizeof(double) * n * n);
    double *out = malloc(sizeof(double) * n * n);
    double *coef = malloc(sizeof(double) * n);
    for (int i = 0; i < n * n; i++)
        in[i] = i % 17;
    for (int j = 0; j < n; j++)
        coef[j] = 1.0 / (j + 1);
    for (int sweep = 0; sweep < 2; sweep++)
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++) {
                double north = in[(i - 1) * n + j];
                double south = in[(i + 1) * n + j];
                double east = in[i * n + j + 1];
                double west = in[i * n + j - 1];
                out[i * n + j] = 0.25 * (north + south + east + west) + coef[j];
            }
    printf("%f\n", out[n * n / 2]);
    free(in);
    free(out);
    free(coef);
    return 0;
}
