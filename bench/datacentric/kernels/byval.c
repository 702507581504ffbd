/* Explicit finite-volume update of a density on a structured 2-D mesh of
 * 150 x 120 cells, in the style of a code that keeps its mesh arrays in a
 * struct and passes that struct by value: `struct mesh_fields` holds the
 * heap arrays vx, vy (face velocities) and area (cell areas), and the
 * update function takes it by value plus 13 more arguments, one per line
 * at the call site. Each step computes upwind fluxes from the neighbours of
 * every cell (rho and pressure at i+-1, j+-1), writes the new density and
 * a residual, then relaxes rho towards the new density.
 *
 * Sizes against a 32 KiB 8-way L1 with 64 B lines: every array is 150 x
 * 120 doubles = 141 KB, a row 1.2 KB. rho and pressure are read at five
 * points, but the rows j-1 and j were read for the previous row and stay
 * in L1: one miss per line each (on the row j+1). vx, vy, area and source
 * are read once per cell: one miss per line each. In relax(), rho and
 * rho_new are read once per cell. new values are only written in update.
 * Expected owner of the read misses (per cell and step, in lines):
 * `rho` 2/8 (update + relax), `rho_new` 1/8, `pressure`, `source` and the
 * three arrays of the struct `mesh` (vx, vy, area) 1/8 each: rho ~25%,
 * rho_new, pressure, source ~12.5% each, mesh ~37.5% (12.5% per field). */
#include <stdio.h>
#include <stdlib.h>

struct mesh_fields {
    double *vx;   /* x velocity at the cell's west face */
    double *vy;   /* y velocity at the cell's south face */
    double *area; /* cell areas */
    int nx, ny;
};

static void update_density(struct mesh_fields mesh, const double *rho, const double *pressure,
                           double *rho_new, const double *source, double dt, double dx,
                           double dy, double kappa, double floor_value, int first_row,
                           int last_row, int step, double *residual) {
    int nx = mesh.nx;
    double res = 0.0;
    for (int j = first_row; j < last_row; j++)
        for (int i = 1; i < nx - 1; i++) {
            int c = j * nx + i;
            double ux = mesh.vx[c], uy = mesh.vy[c];
            double fx = ux > 0.0 ? ux * rho[c - 1] : ux * rho[c];
            double fy = uy > 0.0 ? uy * rho[c - nx] : uy * rho[c];
            double lap = rho[c + 1] + rho[c - 1] + rho[c + nx] + rho[c - nx] - 4.0 * rho[c];
            double dp = (pressure[c + 1] - pressure[c - 1]) / dx +
                        (pressure[c + nx] - pressure[c - nx]) / dy;
            double change = -(fx / dx + fy / dy) + kappa * lap - 0.01 * dp + source[c];
            double r = rho[c] + dt * change / mesh.area[c];
            rho_new[c] = r > floor_value ? r : floor_value;
            res += change * change;
        }
    residual[step] = res;
}

static void relax(int n, double omega, double *rho, const double *rho_new) {
    for (int c = 0; c < n; c++)
        rho[c] = (1.0 - omega) * rho[c] + omega * rho_new[c];
}

static void init_fields(struct mesh_fields *m, double *rho, double *pressure, double *source) {
    for (int j = 0; j < m->ny; j++)
        for (int i = 0; i < m->nx; i++) {
            int c = j * m->nx + i;
            m->vx[c] = 0.5 + 0.1 * ((i + j) % 5);
            m->vy[c] = -0.3 + 0.05 * (i % 7);
            m->area[c] = 1.0 + 0.01 * (j % 3);
            rho[c] = 1.0 + ((i / 10 + j / 10) & 1);
            pressure[c] = rho[c] * 0.4;
            source[c] = (i == m->nx / 2 && j == m->ny / 2) ? 10.0 : 0.0;
        }
}

int main(int argc, char **argv) {
    int nx = 150, ny = argc > 1 ? atoi(argv[1]) : 120;
    int n = nx * ny;
    int steps = 6;
    struct mesh_fields mesh;
    mesh.nx = nx;
    mesh.ny = ny;
    mesh.vx = malloc(sizeof(double) * n);
    mesh.vy = malloc(sizeof(double) * n);
    mesh.area = malloc(sizeof(double) * n);
    double *rho = malloc(sizeof(double) * n);
    double *rho_new = malloc(sizeof(double) * n);
    double *pressure = malloc(sizeof(double) * n);
    double *source = malloc(sizeof(double) * n);
    double *residual = calloc(steps, sizeof(double));
    init_fields(&mesh, rho, pressure, source);
    for (int c = 0; c < n; c++)
        rho_new[c] = rho[c];
    for (int step = 0; step < steps; step++) {
        update_density(mesh,
                       rho,
                       pressure,
                       rho_new,
                       source,
                       0.01,
                       1.0,
                       1.0,
                       0.05,
                       1e-6,
                       1,
                       ny - 1,
                       step,
                       residual);
        relax(n, 0.7, rho, rho_new);
    }
    printf("%f %f\n", residual[steps - 1], rho[(ny / 2) * nx + nx / 2]);
    free(mesh.vx);
    free(mesh.vy);
    free(mesh.area);
    free(rho);
    free(rho_new);
    free(pressure);
    free(source);
    free(residual);
    return 0;
}
