/* Blame through four call levels and nested struct containers: the work in
 * diffuse() writes f->temperature, which is sim.fields.temperature in main. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double *temperature;
    double *pressure;
    int n;
} Fields;

typedef struct {
    Fields fields;
    double dt;
    long steps;
} Simulation;

static void diffuse(double *out, const double *in, int n, double dt) {
    for (int i = 1; i < n - 1; i++)
        out[i] = in[i] + dt * (in[i - 1] - 2.0 * in[i] + in[i + 1]) + sqrt(fabs(in[i])) * 1e-9;
}

static void relax(double *p, int n) {
    for (int i = 0; i < n; i++)
        p[i] = p[i] * 0.5 + 0.25;
}

static void advance(Fields *f, double dt) {
    diffuse(f->temperature, f->temperature, f->n, dt);
    relax(f->pressure, f->n / 16);
}

static void simulate(Simulation *sim) {
    for (long s = 0; s < sim->steps; s++)
        advance(&sim->fields, sim->dt);
}

int main(int argc, char **argv) {
    Simulation sim;
    sim.fields.n = 1 << 15;
    sim.dt = 0.1;
    sim.steps = argc > 1 ? atol(argv[1]) : 4000;
    sim.fields.temperature = malloc(sizeof(double) * sim.fields.n);
    sim.fields.pressure = malloc(sizeof(double) * sim.fields.n);
    for (int i = 0; i < sim.fields.n; i++) {
        sim.fields.temperature[i] = (i % 100) * 0.01;
        sim.fields.pressure[i] = 1.0;
    }
    simulate(&sim);
    printf("%f %f\n", sim.fields.temperature[10], sim.fields.pressure[3]);
    free(sim.fields.temperature);
    free(sim.fields.pressure);
    return 0;
}
