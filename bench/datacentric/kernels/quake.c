/* Seismic wave propagation in the manner of 183.equake: an unstructured
 * mesh of nodes with three displacement components, a sparse stiffness
 * matrix of 3x3 blocks in compressed rows, explicit central-difference
 * time stepping with mass and damping, a point source. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct excitation {
    double dt;
    double duration;
    double t0;
    double amplitude;
    int source_node;
};

struct excitation Exc;
int ARCHnodes;
int ARCHmatrixlen;
int *ARCHmatrixcol;
int *ARCHmatrixindex;
double (*K)[3][3];
double (*M)[3];
double (*C)[3];
double (*disp[3])[3];
double (*vel)[3];
double (*coords)[3];

static unsigned next_random(unsigned *seed) {
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

/* Nodes of a jittered grid, numbered in the order a mesh generator writes
 * them (not along space); each node couples with the nodes of its cell
 * neighbourhood. */
void read_mesh(int side, unsigned seed) {
    int n = side * side * side;
    ARCHnodes = n;
    coords = malloc(sizeof(double[3]) * n);
    int *label = malloc(sizeof(int) * n);
    int *site = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        label[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = next_random(&seed) % (unsigned)(i + 1);
        int t = label[i];
        label[i] = label[j];
        label[j] = t;
    }
    for (int s = 0; s < n; s++)
        site[label[s]] = s;
    for (int i = 0; i < n; i++) {
        int s = site[i];
        coords[i][0] = s % side + (next_random(&seed) % 64) / 256.0;
        coords[i][1] = (s / side) % side + (next_random(&seed) % 64) / 256.0;
        coords[i][2] = s / (side * side) + (next_random(&seed) % 64) / 256.0;
    }
    ARCHmatrixindex = malloc(sizeof(int) * (n + 1));
    ARCHmatrixcol = malloc(sizeof(int) * n * 7);
    int len = 0;
    for (int i = 0; i < n; i++) {
        int s = site[i];
        int x = s % side, y = (s / side) % side, z = s / (side * side);
        int nb[7][3] = {{0, 0, 0},  {-1, 0, 0}, {1, 0, 0}, {0, -1, 0},
                        {0, 1, 0},  {0, 0, -1}, {0, 0, 1}};
        ARCHmatrixindex[i] = len;
        for (int k = 0; k < 7; k++) {
            int a = x + nb[k][0], b = y + nb[k][1], c = z + nb[k][2];
            if (a < 0 || b < 0 || c < 0 || a >= side || b >= side || c >= side)
                continue;
            ARCHmatrixcol[len++] = label[(c * side + b) * side + a];
        }
    }
    ARCHmatrixindex[n] = len;
    ARCHmatrixlen = len;
    free(label);
    free(site);
}

void assemble(void) {
    K = malloc(sizeof(double[3][3]) * ARCHmatrixlen);
    M = malloc(sizeof(double[3]) * ARCHnodes);
    C = malloc(sizeof(double[3]) * ARCHnodes);
    for (int i = 0; i < ARCHnodes; i++) {
        double density = 2.0 + 0.5 * sin(coords[i][2]);
        for (int j = 0; j < 3; j++) {
            M[i][j] = density;
            C[i][j] = 0.01 * density;
        }
        for (int k = ARCHmatrixindex[i]; k < ARCHmatrixindex[i + 1]; k++) {
            int col = ARCHmatrixcol[k];
            double dx = coords[col][0] - coords[i][0];
            double stiff = col == i ? 6.0 : -1.0 - 0.1 * dx;
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    K[k][r][c] = r == c ? stiff : 0.05 * stiff;
        }
    }
}

/* w = K v */
void smvp(int nodes, double (*A)[3][3], int *Acol, int *Aindex, double (*v)[3],
          double (*w)[3]) {
    for (int i = 0; i < nodes; i++) {
        double sum0 = 0.0, sum1 = 0.0, sum2 = 0.0;
        for (int k = Aindex[i]; k < Aindex[i + 1]; k++) {
            int col = Acol[k];
            sum0 += A[k][0][0] * v[col][0] + A[k][0][1] * v[col][1] + A[k][0][2] * v[col][2];
            sum1 += A[k][1][0] * v[col][0] + A[k][1][1] * v[col][1] + A[k][1][2] * v[col][2];
            sum2 += A[k][2][0] * v[col][0] + A[k][2][1] * v[col][1] + A[k][2][2] * v[col][2];
        }
        w[i][0] = sum0;
        w[i][1] = sum1;
        w[i][2] = sum2;
    }
}

double phi0(double t) {
    if (t > Exc.duration)
        return 0.0;
    double x = (t - Exc.t0) / Exc.duration;
    return Exc.amplitude * exp(-16.0 * x * x);
}

void time_step(int step, int dispt, int disptplus, int disptminus) {
    double dt = Exc.dt;
    smvp(ARCHnodes, K, ARCHmatrixcol, ARCHmatrixindex, disp[dispt], disp[disptplus]);
    for (int i = 0; i < ARCHnodes; i++)
        for (int j = 0; j < 3; j++)
            disp[disptplus][i][j] *= -dt * dt;
    disp[disptplus][Exc.source_node][2] += dt * dt * phi0(step * dt);
    for (int i = 0; i < ARCHnodes; i++)
        for (int j = 0; j < 3; j++) {
            disp[disptplus][i][j] += 2.0 * M[i][j] * disp[dispt][i][j] -
                                     (M[i][j] - dt / 2.0 * C[i][j]) * disp[disptminus][i][j];
            disp[disptplus][i][j] /= M[i][j] + dt / 2.0 * C[i][j];
            vel[i][j] = 0.5 / dt * (disp[disptplus][i][j] - disp[disptminus][i][j]);
        }
}

double energy(void) {
    double e = 0.0;
    for (int i = 0; i < ARCHnodes; i++)
        for (int j = 0; j < 3; j++)
            e += 0.5 * M[i][j] * vel[i][j] * vel[i][j];
    return e;
}

int main(int argc, char **argv) {
    int side = argc > 1 ? atoi(argv[1]) : 22;
    int steps = argc > 2 ? atoi(argv[2]) : 8;
    read_mesh(side, 7);
    assemble();
    Exc.dt = 0.01;
    Exc.duration = 0.05;
    Exc.t0 = 0.02;
    Exc.amplitude = 1.0;
    Exc.source_node = ARCHnodes / 2;
    for (int t = 0; t < 3; t++) {
        disp[t] = malloc(sizeof(double[3]) * ARCHnodes);
        for (int i = 0; i < ARCHnodes; i++)
            disp[t][i][0] = disp[t][i][1] = disp[t][i][2] = 0.0;
    }
    vel = malloc(sizeof(double[3]) * ARCHnodes);
    int dispt = 0, disptplus = 1, disptminus = 2;
    double e = 0.0;
    for (int step = 1; step <= steps; step++) {
        time_step(step, dispt, disptplus, disptminus);
        e = energy();
        int t = disptminus;
        disptminus = dispt;
        dispt = disptplus;
        disptplus = t;
    }
    printf("nodes %d, nonzeros %d, energy %g, source %g\n", ARCHnodes, ARCHmatrixlen, e,
           disp[dispt][Exc.source_node][2]);
    for (int t = 0; t < 3; t++)
        free(disp[t]);
    free(vel);
    free(K);
    free(M);
    free(C);
    free(coords);
    free(ARCHmatrixcol);
    free(ARCHmatrixindex);
    return 0;
}
