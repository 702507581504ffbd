/* Real-space Ewald energy over a precomputed pair list, with erfc(r)/r
 * from a lookup table (no interpolation, a fine table): for each pair k,
 * e += qq[k] * table[(int)(r[k] * inv_dr)], the table index computed from
 * the pair's distance. The pair data (distance and charge product, in two
 * arrays) come from a neighbour-list build done elsewhere, in list order.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: the table has 2000
 * entries (16 KB) and, though read at data-dependent indices, stays in L1
 * for the whole sweep; r and qq (150000 pairs, 1.2 MB each) are streamed:
 * one miss per line each. Expected owner of the read misses: `pair_r` ~49%,
 * `pair_qq` ~49%, `erfc_table` ~2% (written by its setup just before; a
 * few of its lines are evicted by the streams between two reads). A
 * weight that counts every data-dependent read as a miss would give the
 * table most of the misses on the one line where all three are read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct table_spec {
    int n;
    double rmax, inv_dr;
};

static void build_erfc_table(const struct table_spec *spec, double alpha, double *table) {
    for (int i = 0; i < spec->n; i++) {
        double r = (i + 0.5) / spec->inv_dr;
        table[i] = erfc(alpha * r) / r;
    }
}

static double real_space_energy(int npairs, const double *r, const double *qq,
                                const double *table, double inv_dr) {
    double e = 0.0;
    for (int k = 0; k < npairs; k++)
        e += qq[k] * table[(int)(r[k] * inv_dr)];
    return e;
}

static void fake_pair_list(int npairs, double rmax, double *r, double *qq) {
    unsigned seed = 31337;
    for (int k = 0; k < npairs; k++) {
        seed = seed * 1664525u + 1013904223u;
        r[k] = 0.8 + (rmax - 0.81) * ((seed >> 8) & 0xffff) / 65536.0;
        qq[k] = (seed & 0x80) ? 0.16 : -0.16;
    }
}

int main(int argc, char **argv) {
    int npairs = argc > 1 ? atoi(argv[1]) : 150000;
    struct table_spec spec = {2000, 10.0, 0.0};
    spec.inv_dr = spec.n / spec.rmax;
    double *pair_r = malloc(sizeof(double) * npairs);
    double *pair_qq = malloc(sizeof(double) * npairs);
    double *erfc_table = malloc(sizeof(double) * spec.n);
    fake_pair_list(npairs, spec.rmax, pair_r, pair_qq);
    build_erfc_table(&spec, 0.35, erfc_table);
    double e = 0.0;
    for (int pass = 0; pass < 2; pass++)
        e += real_space_energy(npairs, pair_r, pair_qq, erfc_table, spec.inv_dr);
    printf("%f\n", e);
    free(pair_r);
    free(pair_qq);
    free(erfc_table);
    return 0;
}
