/* Molecular dynamics in the manner of 188.ammp: atoms as an array of
 * structs, a linked-cell neighbour search, Lennard-Jones plus Coulomb
 * forces over a neighbour list, velocity-Verlet updates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NTYPES 4

typedef struct {
    double x, y, z;
    double vx, vy, vz;
    double fx, fy, fz;
    double q;
    double mass;
    int type;
    int serial;
} ATOM;

/* Global state, as ammp keeps it. */
ATOM *atoms;
int natoms;
double box;
double cutoff = 2.5;
double lj_a[NTYPES][NTYPES];
double lj_b[NTYPES][NTYPES];
double dielectric = 4.0;
int *nbr_start;
int *nbr_list;
int nbr_total;
double potential;

static unsigned next_random(unsigned *seed) {
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

void setup_atoms(int n, unsigned seed) {
    int side = (int)ceil(cbrt((double)n));
    double spacing = 1.1;
    natoms = n;
    box = side * spacing;
    atoms = malloc(sizeof(ATOM) * n);
    /* Atoms come from a file in residue order: numbering does not follow space. */
    int *order = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        order[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = next_random(&seed) % (unsigned)(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int i = 0; i < n; i++) {
        int site = order[i];
        ATOM *a = &atoms[i];
        a->x = (site % side) * spacing + (next_random(&seed) % 100) * 0.001;
        a->y = ((site / side) % side) * spacing + (next_random(&seed) % 100) * 0.001;
        a->z = (site / (side * side)) * spacing + (next_random(&seed) % 100) * 0.001;
        a->vx = a->vy = a->vz = 0.0;
        a->fx = a->fy = a->fz = 0.0;
        a->type = next_random(&seed) % NTYPES;
        a->q = (i % 2 ? 0.4 : -0.4);
        a->mass = 12.0 + 4.0 * a->type;
        a->serial = i;
    }
    free(order);
    for (int s = 0; s < NTYPES; s++)
        for (int t = 0; t < NTYPES; t++) {
            double sigma = 0.9 + 0.05 * (s + t);
            double eps = 0.2 + 0.01 * s * t;
            lj_a[s][t] = 4.0 * eps * pow(sigma, 12.0);
            lj_b[s][t] = 4.0 * eps * pow(sigma, 6.0);
        }
}

/* Linked cells: every atom is chained into the cell it sits in. */
void build_neighbours(void) {
    int ncell = (int)(box / cutoff);
    if (ncell < 1)
        ncell = 1;
    double cell_size = box / ncell;
    int *cell_head = malloc(sizeof(int) * ncell * ncell * ncell);
    int *cell_next = malloc(sizeof(int) * natoms);
    for (int c = 0; c < ncell * ncell * ncell; c++)
        cell_head[c] = -1;
    for (int i = 0; i < natoms; i++) {
        int cx = (int)(atoms[i].x / cell_size) % ncell;
        int cy = (int)(atoms[i].y / cell_size) % ncell;
        int cz = (int)(atoms[i].z / cell_size) % ncell;
        int c = (cz * ncell + cy) * ncell + cx;
        cell_next[i] = cell_head[c];
        cell_head[c] = i;
    }
    double cut2 = cutoff * cutoff;
    int count = 0;
    for (int i = 0; i < natoms; i++) {
        nbr_start[i] = count;
        int cx = (int)(atoms[i].x / cell_size) % ncell;
        int cy = (int)(atoms[i].y / cell_size) % ncell;
        int cz = (int)(atoms[i].z / cell_size) % ncell;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int c = (((cz + dz + ncell) % ncell) * ncell + (cy + dy + ncell) % ncell) *
                                ncell +
                            (cx + dx + ncell) % ncell;
                    for (int j = cell_head[c]; j >= 0; j = cell_next[j]) {
                        if (j <= i)
                            continue;
                        double rx = atoms[j].x - atoms[i].x;
                        double ry = atoms[j].y - atoms[i].y;
                        double rz = atoms[j].z - atoms[i].z;
                        if (rx * rx + ry * ry + rz * rz < cut2)
                            nbr_list[count++] = j;
                    }
                }
    }
    nbr_start[natoms] = count;
    nbr_total = count;
    free(cell_head);
    free(cell_next);
}

void compute_forces(void) {
    double cut2 = cutoff * cutoff;
    potential = 0.0;
    for (int i = 0; i < natoms; i++) {
        atoms[i].fx = 0.0;
        atoms[i].fy = 0.0;
        atoms[i].fz = 0.0;
    }
    for (int i = 0; i < natoms; i++) {
        ATOM *ai = &atoms[i];
        double xi = ai->x, yi = ai->y, zi = ai->z;
        double qi = ai->q;
        int ti = ai->type;
        double fxi = 0.0, fyi = 0.0, fzi = 0.0;
        for (int k = nbr_start[i]; k < nbr_start[i + 1]; k++) {
            int j = nbr_list[k];
            ATOM *aj = &atoms[j];
            double rx = aj->x - xi;
            double ry = aj->y - yi;
            double rz = aj->z - zi;
            double r2 = rx * rx + ry * ry + rz * rz;
            if (r2 > cut2)
                continue;
            double r2inv = 1.0 / r2;
            double r6inv = r2inv * r2inv * r2inv;
            int tj = aj->type;
            double lj = r6inv * (12.0 * lj_a[ti][tj] * r6inv - 6.0 * lj_b[ti][tj]);
            double coul = qi * aj->q / (dielectric * sqrt(r2));
            double f = (lj + coul) * r2inv;
            potential += r6inv * (lj_a[ti][tj] * r6inv - lj_b[ti][tj]) + coul;
            fxi -= f * rx;
            fyi -= f * ry;
            fzi -= f * rz;
            aj->fx += f * rx;
            aj->fy += f * ry;
            aj->fz += f * rz;
        }
        ai->fx += fxi;
        ai->fy += fyi;
        ai->fz += fzi;
    }
}

void verlet_positions(double dt) {
    for (int i = 0; i < natoms; i++) {
        double h = 0.5 * dt / atoms[i].mass;
        atoms[i].vx += h * atoms[i].fx;
        atoms[i].vy += h * atoms[i].fy;
        atoms[i].vz += h * atoms[i].fz;
        atoms[i].x += dt * atoms[i].vx;
        atoms[i].y += dt * atoms[i].vy;
        atoms[i].z += dt * atoms[i].vz;
    }
}

double verlet_velocities(double dt) {
    double kinetic = 0.0;
    for (int i = 0; i < natoms; i++) {
        double h = 0.5 * dt / atoms[i].mass;
        atoms[i].vx += h * atoms[i].fx;
        atoms[i].vy += h * atoms[i].fy;
        atoms[i].vz += h * atoms[i].fz;
        kinetic += 0.5 * atoms[i].mass *
                   (atoms[i].vx * atoms[i].vx + atoms[i].vy * atoms[i].vy +
                    atoms[i].vz * atoms[i].vz);
    }
    return kinetic;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4000;
    int steps = argc > 2 ? atoi(argv[2]) : 3;
    double dt = 0.0005;
    setup_atoms(n, 2024);
    nbr_start = malloc(sizeof(int) * (n + 1));
    nbr_list = malloc(sizeof(int) * n * 80);
    build_neighbours();
    compute_forces();
    double kinetic = 0.0;
    for (int step = 0; step < steps; step++) {
        verlet_positions(dt);
        compute_forces();
        kinetic = verlet_velocities(dt);
    }
    printf("%d pairs, potential %f, kinetic %f\n", nbr_total, potential, kinetic);
    free(nbr_list);
    free(nbr_start);
    free(atoms);
    return 0;
}
