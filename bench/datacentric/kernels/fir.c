/* Decimating FIR filter (anti-aliasing low-pass, then keep every 4th
 * sample) over a long recorded signal: y[n] = sum_k h[k] x[4n + k], with
 * 32 taps, in a helper that takes the signal, the taps and the output as
 * pointers. Two channels are filtered one after the other.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: the taps h are 32
 * doubles = 256 B and are read in full for every output: they stay in L1.
 * Each channel's signal is 60000 doubles = 469 KB; consecutive outputs
 * read overlapping windows (32 samples, moving by 4), so every line of x
 * misses once. y is only written.
 * Expected owner of the read misses: `left` and `right` ~50% each, `taps`
 * ~0. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void decimate(const double *x, int nx, const double *h, int ntaps, int factor,
                     double *y) {
    int ny = (nx - ntaps) / factor;
    for (int n = 0; n < ny; n++) {
        const double *window = x + (size_t)n * factor;
        double acc = 0.0;
        for (int k = 0; k < ntaps; k++)
            acc += h[k] * window[k];
        y[n] = acc;
    }
}

/* Windowed-sinc low-pass with cutoff 1/(2 factor) of the sampling rate. */
static void design_lowpass(int ntaps, int factor, double *h) {
    double fc = 0.5 / factor, sum = 0.0;
    for (int k = 0; k < ntaps; k++) {
        double t = k - (ntaps - 1) / 2.0;
        double sinc = t == 0.0 ? 2.0 * fc : sin(2.0 * M_PI * fc * t) / (M_PI * t);
        double hann = 0.5 - 0.5 * cos(2.0 * M_PI * k / (ntaps - 1));
        h[k] = sinc * hann;
        sum += h[k];
    }
    for (int k = 0; k < ntaps; k++)
        h[k] /= sum;
}

static void synthesize(int n, double *x, unsigned seed) {
    double phase = 0.0;
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        phase += 0.01;
        if (phase > 1.0)
            phase -= 2.0;
        x[i] = phase + ((int)(seed >> 20) - 2048) * 1e-4;
    }
}

int main(int argc, char **argv) {
    int nx = argc > 1 ? atoi(argv[1]) : 60000;
    int ntaps = 32, factor = 4;
    double *taps = malloc(sizeof(double) * ntaps);
    double *left = malloc(sizeof(double) * nx);
    double *right = malloc(sizeof(double) * nx);
    double *out_left = malloc(sizeof(double) * (nx / factor));
    double *out_right = malloc(sizeof(double) * (nx / factor));
    design_lowpass(ntaps, factor, taps);
    synthesize(nx, left, 1);
    synthesize(nx, right, 2);
    decimate(left, nx, taps, ntaps, factor, out_left);
    decimate(right, nx, taps, ntaps, factor, out_right);
    printf("%f %f\n", out_left[nx / 8], out_right[nx / 8]);
    free(taps);
    free(left);
    free(right);
    free(out_left);
    free(out_right);
    return 0;
}
