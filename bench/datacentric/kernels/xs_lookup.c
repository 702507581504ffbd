/* Monte Carlo neutron transport, event-based, in the manner of the cross-
 * section lookup kernels of reactor codes: a bank of particles, each round
 * every live particle looks up macroscopic cross sections at its energy
 * and collides (scatters down in energy, is absorbed and restarted from
 * the source). The tables are a struct of grids of different sizes passed
 * by pointer:
 *  - a unionized energy grid of 30000 points and four cross sections on it
 *    (total, absorption, fission, nu-fission), 240 KB each: a binary search
 *    of the energy grid, then linear interpolation at the index found;
 *  - a thermal scattering table of 256 points (2 KB energy + 2 KB data),
 *    searched for energies below the thermal cutoff;
 *  - an unresolved-resonance probability table of 4096 factors (32 KB),
 *    read at a random band for energies in the resonance range.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: the binary search's top
 * levels (a few hundred entries, visited by every search) stay in L1, the
 * last ~6 levels before the final line miss: `energy` ~3 misses per lookup;
 * the four cross sections miss once each at a random index (the two points
 * of an interpolation share a line 7 times in 8); energy[idx], energy[idx+1]
 * in the interpolation hit (the search just read them); the particle bank
 * (40 B per particle, 200 KB) is streamed once per round; the thermal table
 * stays in L1; the resonance table fits only partly beside the rest.
 * Expected owner of the read misses: the struct of grids `grids` ~93%
 * (energy ~50% in the search, the four cross sections ~37% together,
 * resonance table ~3%, thermal table ~1%), the particle bank `bank` ~6%
 * (from the per-line counts of the first run: thermal particles keep to
 * the low end of the grid, whose lines stay cached). */
#include <stdio.h>
#include <stdlib.h>

struct xs_grids {
    int n_union;
    double *energy; /* ascending, MeV */
    double *total;
    double *absorption;
    double *fission;
    double *nu_fission;
    int n_thermal;
    double thermal_cutoff;
    double *thermal_energy;
    double *thermal_scatter;
    int n_urr;
    double urr_low, urr_high;
    double *urr_factor;
};

struct particle {
    double energy;
    double weight;
    double distance;
    int material;
    int alive;
};

struct tallies {
    double collisions;
    double absorption;
    double fission_source;
    double thermal_scatters;
};

static unsigned next_random(unsigned *seed) {
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

static double uniform(unsigned *seed) {
    return (next_random(seed) & 0xffffff) / 16777216.0;
}

static void build_grids(struct xs_grids *g, int n_union, unsigned *seed) {
    g->n_union = n_union;
    g->energy = malloc(sizeof(double) * n_union);
    g->total = malloc(sizeof(double) * n_union);
    g->absorption = malloc(sizeof(double) * n_union);
    g->fission = malloc(sizeof(double) * n_union);
    g->nu_fission = malloc(sizeof(double) * n_union);
    /* Log-spaced from 1e-11 to 20 MeV, with a little jitter. */
    double ratio = 1.0 + 28.3 / n_union;
    double e = 1e-11;
    for (int i = 0; i < n_union; i++) {
        g->energy[i] = e * (1.0 + 0.1 * (ratio - 1.0) * uniform(seed));
        e *= ratio;
        double resonance = (i % 211) < 5 ? 40.0 : 1.0;
        g->absorption[i] = 0.02 * resonance + 0.001 * (i % 13);
        g->fission[i] = 0.01 * resonance;
        g->nu_fission[i] = 2.43 * g->fission[i];
        g->total[i] = g->absorption[i] + 0.4 + 0.002 * (i % 17);
    }
    g->n_thermal = 256;
    g->thermal_cutoff = 4e-6;
    g->thermal_energy = malloc(sizeof(double) * g->n_thermal);
    g->thermal_scatter = malloc(sizeof(double) * g->n_thermal);
    for (int i = 0; i < g->n_thermal; i++) {
        g->thermal_energy[i] = g->thermal_cutoff * (i + 1) / g->n_thermal;
        g->thermal_scatter[i] = 0.5 + 0.3 * ((i * 37) % 64) / 64.0;
    }
    g->n_urr = 4096;
    g->urr_low = 1e-3;
    g->urr_high = 0.1;
    g->urr_factor = malloc(sizeof(double) * g->n_urr);
    for (int i = 0; i < g->n_urr; i++)
        g->urr_factor[i] = 0.6 + 0.8 * uniform(seed);
}

static int grid_search(int n, const double *grid, double e) {
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (grid[mid] > e)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

/* Macroscopic cross sections at energy e: total, absorption, fission, nu-fission. */
static void lookup_macro(const struct xs_grids *xs, double e, unsigned *seed, double xsout[4]) {
    int idx = grid_search(xs->n_union, xs->energy, e);
    double f = (e - xs->energy[idx]) / (xs->energy[idx + 1] - xs->energy[idx]);
    xsout[0] = xs->total[idx] + f * (xs->total[idx + 1] - xs->total[idx]);
    xsout[1] = xs->absorption[idx] + f * (xs->absorption[idx + 1] - xs->absorption[idx]);
    xsout[2] = xs->fission[idx] + f * (xs->fission[idx + 1] - xs->fission[idx]);
    xsout[3] = xs->nu_fission[idx] + f * (xs->nu_fission[idx + 1] - xs->nu_fission[idx]);
    if (e > xs->urr_low && e < xs->urr_high) {
        int band = next_random(seed) % xs->n_urr;
        xsout[0] *= xs->urr_factor[band];
    }
}

static double thermal_scatter(const struct xs_grids *xs, double e) {
    int k = grid_search(xs->n_thermal, xs->thermal_energy, e);
    return xs->thermal_scatter[k];
}

/* The bank of a previous generation: particles at all energies. */
static void init_bank(int n, struct particle *bank, unsigned *seed) {
    for (int i = 0; i < n; i++) {
        double u = uniform(seed);
        double u2 = u * u, u4 = u2 * u2;
        bank[i].energy = 10.0 * u4 * u4 + 1e-10;
        bank[i].weight = 1.0;
        bank[i].distance = 0.0;
        bank[i].material = i % 4;
        bank[i].alive = 1;
    }
}

/* One collision for every particle in the bank. */
static void transport_round(int n, struct particle *bank, const struct xs_grids *xs,
                            struct tallies *t, unsigned *seed) {
    double macro[4];
    for (int i = 0; i < n; i++) {
        struct particle *p = &bank[i];
        if (!p->alive)
            continue;
        double e = p->energy;
        lookup_macro(xs, e, seed, macro);
        p->distance += -1.0 / macro[0] * (uniform(seed) - 1.0);
        t->collisions += p->weight;
        if (uniform(seed) * macro[0] < macro[1]) {
            /* absorbed: score, restart from the fission source */
            t->absorption += p->weight;
            t->fission_source += p->weight * macro[3] / macro[1];
            p->energy = 2.0 + 10.0 * uniform(seed);
            continue;
        }
        double loss = 0.02 + 0.68 * uniform(seed);
        if (e < xs->thermal_cutoff) {
            loss = thermal_scatter(xs, e) + 0.5 * uniform(seed);
            t->thermal_scatters += p->weight;
        }
        p->energy = e * loss;
        if (p->energy < 2e-11)
            p->energy = 2.0 + 10.0 * uniform(seed);
    }
}

int main(int argc, char **argv) {
    int nparticles = argc > 1 ? atoi(argv[1]) : 5000;
    int rounds = 6;
    unsigned seed = 42;
    struct xs_grids grids;
    build_grids(&grids, 30000, &seed);
    struct particle *bank = malloc(sizeof(struct particle) * nparticles);
    init_bank(nparticles, bank, &seed);
    struct tallies tally = {0};
    for (int r = 0; r < rounds; r++)
        transport_round(nparticles, bank, &grids, &tally, &seed);
    printf("k = %f (%.0f collisions, %.0f thermal)\n",
           tally.fission_source / tally.absorption, tally.collisions, tally.thermal_scatters);
    free(grids.energy);
    free(grids.total);
    free(grids.absorption);
    free(grids.fission);
    free(grids.nu_fission);
    free(grids.thermal_energy);
    free(grids.thermal_scatter);
    free(grids.urr_factor);
    free(bank);
    return 0;
}
