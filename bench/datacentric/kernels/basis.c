/* Modal-to-nodal transform of a spectral method: each of 1000 element
 * vectors of 30 modal coefficients is evaluated at 30 nodes through the
 * 30 x 30 Vandermonde matrix V, stored column-major as a Fortran code
 * would write it, so the inner loop reads V along a row with a stride of
 * 30 doubles (240 B): nodal[e][i] = sum_j V[i + 30 j] * modal[e][j].
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: V is 7.2 KB and is read
 * in full for every element: it stays in L1 (its stride of 240 B changes
 * nothing: after the first element every line of V is cached). `modal`
 * is 1000 x 30 doubles = 240 KB, each element's 240 B read 30 times in a
 * row: one miss per line per element, streamed. `nodal` is only written.
 * Expected owner of the read misses: `modal` ~97%, `vander` ~3% (its 113
 * cold lines, against modal's 3750). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Legendre polynomials P_j at the nodes, column-major: V[i + p*j] = P_j(x_i). */
static void vandermonde(int p, const double *nodes, double *v) {
    for (int i = 0; i < p; i++) {
        double x = nodes[i];
        double prev = 1.0, cur = x;
        v[i] = 1.0;
        if (p > 1)
            v[i + p] = x;
        for (int j = 2; j < p; j++) {
            double next = ((2 * j - 1) * x * cur - (j - 1) * prev) / j;
            v[i + p * j] = next;
            prev = cur;
            cur = next;
        }
    }
}

static void modal_to_nodal(int nelem, int p, const double *v, const double *modal,
                           double *nodal) {
    for (int e = 0; e < nelem; e++) {
        const double *u = modal + (size_t)e * p;
        double *out = nodal + (size_t)e * p;
        for (int i = 0; i < p; i++) {
            double sum = 0.0;
            for (int j = 0; j < p; j++)
                sum += v[i + p * j] * u[j];
            out[i] = sum;
        }
    }
}

int main(int argc, char **argv) {
    int nelem = argc > 1 ? atoi(argv[1]) : 1000;
    int p = 30;
    double *nodes = malloc(sizeof(double) * p);
    double *vander = malloc(sizeof(double) * p * p);
    double *modal = malloc(sizeof(double) * (size_t)nelem * p);
    double *nodal = malloc(sizeof(double) * (size_t)nelem * p);
    for (int i = 0; i < p; i++)
        nodes[i] = -cos(M_PI * i / (p - 1));
    vandermonde(p, nodes, vander);
    for (int e = 0; e < nelem; e++)
        for (int j = 0; j < p; j++)
            modal[(size_t)e * p + j] = 1.0 / (1 + j + (e % 7));
    modal_to_nodal(nelem, p, vander, modal, nodal);
    printf("%f\n", nodal[(size_t)(nelem / 2) * p + 3]);
    free(nodes);
    free(vander);
    free(modal);
    free(nodal);
    return 0;
}
