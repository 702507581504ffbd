/* Fully connected layer, row-major: out = relu(W in + bias), W of 1200
 * outputs x 320 inputs, applied to a few input vectors one after another
 * (a small batch evaluated vector by vector, as inference code does).
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: W is 1200 x 320 doubles
 * = 3.1 MB and is streamed once per input vector (40 lines per row, no
 * reuse); the input vector `in` is 2.5 KB (40 lines) and is read in full
 * for every row, so it stays in L1 after the first row; `bias` (9.6 KB) is
 * read once per row (one miss per 8 rows); `out` is only written here.
 * Expected owner of the read misses: `weights` ~99% (bias ~0.3%, input
 * vectors ~0). */
#include <stdio.h>
#include <stdlib.h>

/* Deterministic pseudo-random fill (the weights of a trained model would be read from a file). */
static void fill_random(double *v, size_t n, double scale, unsigned *seed) {
    unsigned s = *seed;
    for (size_t i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        v[i] = ((int)(s >> 20) - 2048) * scale;
    }
    *seed = s;
}

/* out[o] = relu(bias[o] + sum_k w[o][k] * in[k]) */
static void dense_forward(int nout, int nin, const double *w, const double *bias,
                          const double *in, double *out) {
    for (int o = 0; o < nout; o++) {
        const double *row = w + (size_t)o * nin;
        double acc = bias[o];
        for (int k = 0; k < nin; k++)
            acc += row[k] * in[k];
        out[o] = acc > 0.0 ? acc : 0.0;
    }
}

int main(int argc, char **argv) {
    int nout = argc > 1 ? atoi(argv[1]) : 1200;
    int nin = 320;
    int batch = 2;
    unsigned seed = 2024;
    double *weights = malloc(sizeof(double) * (size_t)nout * nin);
    double *bias = malloc(sizeof(double) * nout);
    double *inputs = malloc(sizeof(double) * (size_t)batch * nin);
    double *outputs = malloc(sizeof(double) * (size_t)batch * nout);
    fill_random(weights, (size_t)nout * nin, 1e-3, &seed);
    fill_random(bias, nout, 1e-2, &seed);
    fill_random(inputs, (size_t)batch * nin, 1e-1, &seed);
    for (int b = 0; b < batch; b++)
        dense_forward(nout, nin, weights, bias, inputs + (size_t)b * nin,
                      outputs + (size_t)b * nout);
    double check = 0.0;
    for (int b = 0; b < batch; b++)
        check += outputs[(size_t)b * nout + nout / 2];
    printf("%f\n", check);
    free(weights);
    free(bias);
    free(inputs);
    free(outputs);
    return 0;
}
