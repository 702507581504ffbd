/* Tabulated equation of state in a hydrodynamics code: for every cell of
 * a mesh, pressure and sound speed come from bilinear interpolation in two
 * small tables indexed by density and specific internal energy (32 x 32
 * points each, on uniform axes), then the cell's time-step limit follows.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: the tables p_table and
 * c_table are 32 x 32 doubles = 8 KB each; every cell reads four entries
 * of each at indices computed from its state (a gather), but both tables
 * together (16 KB) stay in L1 for the whole sweep. The mesh arrays density,
 * energy, velocity (80000 cells, 625 KB each) are streamed: one miss per
 * line each; pressure and sound_speed are only written.
 * Expected owner of the read misses: `density`, `energy`, `velocity` ~33%
 * each; `p_table`, `c_table` ~1% each (a few lines evicted by the streams).
 * Weighing each table read as a gather (one miss per read) would give the
 * tables most of any line where they are read beside a stream. */
#include <stdio.h>
#include <stdlib.h>

#define NT 32

struct axis {
    double lo, inv_step; /* uniform axis: index = (x - lo) * inv_step */
};

static int locate(const struct axis *ax, double x, double *frac) {
    double s = (x - ax->lo) * ax->inv_step;
    int k = (int)s;
    if (k < 0)
        k = 0;
    if (k > NT - 2)
        k = NT - 2;
    *frac = s - k;
    return k;
}

static double bilinear(const double *table, int i, int j, double fi, double fj) {
    double t00 = table[i * NT + j], t01 = table[i * NT + j + 1];
    double t10 = table[(i + 1) * NT + j], t11 = table[(i + 1) * NT + j + 1];
    return (1.0 - fi) * ((1.0 - fj) * t00 + fj * t01) + fi * ((1.0 - fj) * t10 + fj * t11);
}

static double eos_sweep(int ncells, const struct axis *rho_axis, const struct axis *e_axis,
                        const double *p_table, const double *c_table, const double *density,
                        const double *energy, const double *velocity, double *pressure,
                        double *sound_speed, double dx) {
    double dt_min = 1e30;
    for (int c = 0; c < ncells; c++) {
        double fr, fe;
        int i = locate(rho_axis, density[c], &fr);
        int j = locate(e_axis, energy[c], &fe);
        double p = bilinear(p_table, i, j, fr, fe);
        double cs = bilinear(c_table, i, j, fr, fe);
        pressure[c] = p;
        sound_speed[c] = cs;
        double speed = cs + (velocity[c] > 0.0 ? velocity[c] : -velocity[c]);
        double dt = dx / speed;
        if (dt < dt_min)
            dt_min = dt;
    }
    return dt_min;
}

static void build_tables(const struct axis *ra, const struct axis *ea, double *p_table,
                         double *c_table) {
    for (int i = 0; i < NT; i++)
        for (int j = 0; j < NT; j++) {
            double rho = ra->lo + i / ra->inv_step;
            double e = ea->lo + j / ea->inv_step;
            p_table[i * NT + j] = 0.4 * rho * e + 0.01 * rho * rho;
            c_table[i * NT + j] = 1.0 + 0.5 * e / (1.0 + rho);
        }
}

int main(int argc, char **argv) {
    int ncells = argc > 1 ? atoi(argv[1]) : 80000;
    struct axis rho_axis = {0.1, NT / 10.0}, e_axis = {0.5, NT / 5.0};
    double *p_table = malloc(sizeof(double) * NT * NT);
    double *c_table = malloc(sizeof(double) * NT * NT);
    double *density = malloc(sizeof(double) * ncells);
    double *energy = malloc(sizeof(double) * ncells);
    double *velocity = malloc(sizeof(double) * ncells);
    double *pressure = malloc(sizeof(double) * ncells);
    double *sound_speed = malloc(sizeof(double) * ncells);
    build_tables(&rho_axis, &e_axis, p_table, c_table);
    unsigned seed = 99;
    for (int c = 0; c < ncells; c++) {
        seed = seed * 1664525u + 1013904223u;
        density[c] = 0.2 + 9.5 * ((seed >> 8) & 0xffff) / 65536.0;
        energy[c] = 0.6 + 4.5 * ((seed >> 4) & 0xfff) / 4096.0;
        velocity[c] = ((int)(seed & 0xff) - 128) * 0.01;
    }
    double dt = eos_sweep(ncells, &rho_axis, &e_axis, p_table, c_table, density, energy,
                          velocity, pressure, sound_speed, 0.01);
    printf("%g %f\n", dt, pressure[ncells / 3]);
    free(p_table);
    free(c_table);
    free(density);
    free(energy);
    free(velocity);
    free(pressure);
    free(sound_speed);
    return 0;
}
