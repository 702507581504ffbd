/* Adaptive resonance (ART 2) pattern matching in the manner of 179.art:
 * an F1 layer of neurons kept as an array of structs, bottom-up (bus) and
 * top-down (tds) weight matrices, an F2 layer Y; F1 is iterated to
 * equilibrium for each input, the winning F2 neuron is picked, checked
 * against the vigilance and trained. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double *I;
    double W;
    double X;
    double V;
    double U;
    double P;
    double Q;
    double R;
} f1_neuron;

typedef struct {
    double y;
    int reset;
} xyz;

f1_neuron *f1_layer;
xyz *Y;
double **bus;
double **tds;
double *inputs;
int numf1s;
int numf2s;
int winner;

double a = 255.0;
double b = 0.0;
double c = 0.11;
double d = 0.9;
double theta = 0.0;
double e = 0.0;
double rho = 0.8;

static double g(int j) { return Y[j].y > 0.0 && j == winner ? d : 0.0; }

static double f(double x) { return x >= theta ? x : 0.0; }

void init_net(int n1, int n2, unsigned seed) {
    numf1s = n1;
    numf2s = n2;
    f1_layer = malloc(sizeof(f1_neuron) * numf1s);
    Y = malloc(sizeof(xyz) * numf2s);
    bus = malloc(sizeof(double *) * numf1s);
    tds = malloc(sizeof(double *) * numf1s);
    for (int i = 0; i < numf1s; i++) {
        bus[i] = malloc(sizeof(double) * numf2s);
        tds[i] = malloc(sizeof(double) * numf2s);
        for (int j = 0; j < numf2s; j++) {
            seed = seed * 1103515245u + 12345u;
            bus[i][j] = 1.0 / ((1.0 - d) * sqrt(numf1s)) * (0.9 + (seed >> 20) / 40960.0);
            tds[i][j] = 0.0;
        }
    }
    inputs = malloc(sizeof(double) * numf1s);
}

void load_input(int pattern) {
    for (int i = 0; i < numf1s; i++) {
        inputs[i] = ((i * 7 + pattern * 13) % 31) / 31.0;
        f1_layer[i].I = &inputs[i];
        f1_layer[i].W = f1_layer[i].X = f1_layer[i].V = 0.0;
        f1_layer[i].U = f1_layer[i].P = f1_layer[i].Q = f1_layer[i].R = 0.0;
    }
    for (int j = 0; j < numf2s; j++) {
        Y[j].y = 0.0;
        Y[j].reset = 0;
    }
}

/* One pass of the F1 equations: W, X, V, U, P, Q with their norms. */
double compute_values_match(void) {
    double tnorm = 0.0;
    for (int ti = 0; ti < numf1s; ti++) {
        f1_layer[ti].W = *f1_layer[ti].I + a * f1_layer[ti].U;
        tnorm += f1_layer[ti].W * f1_layer[ti].W;
    }
    tnorm = sqrt(tnorm);
    for (int ti = 0; ti < numf1s; ti++)
        f1_layer[ti].X = f1_layer[ti].W / (e + tnorm);
    tnorm = 0.0;
    for (int ti = 0; ti < numf1s; ti++) {
        f1_layer[ti].V = f(f1_layer[ti].X) + b * f(f1_layer[ti].Q);
        tnorm += f1_layer[ti].V * f1_layer[ti].V;
    }
    tnorm = sqrt(tnorm);
    for (int ti = 0; ti < numf1s; ti++)
        f1_layer[ti].U = f1_layer[ti].V / (e + tnorm);
    tnorm = 0.0;
    for (int ti = 0; ti < numf1s; ti++) {
        double tsum = 0.0;
        for (int tj = 0; tj < numf2s; tj++)
            tsum += g(tj) * tds[ti][tj];
        f1_layer[ti].P = f1_layer[ti].U + tsum;
        tnorm += f1_layer[ti].P * f1_layer[ti].P;
    }
    tnorm = sqrt(tnorm);
    for (int ti = 0; ti < numf1s; ti++)
        f1_layer[ti].Q = f1_layer[ti].P / (e + tnorm);
    return tnorm;
}

/* Bottom-up activation of F2 and the winner among the neurons not reset. */
void compute_y(void) {
    for (int tj = 0; tj < numf2s; tj++) {
        double tsum = 0.0;
        if (Y[tj].reset)
            continue;
        for (int ti = 0; ti < numf1s; ti++)
            tsum += f1_layer[ti].P * bus[ti][tj];
        Y[tj].y = tsum;
    }
    winner = -1;
    for (int tj = 0; tj < numf2s; tj++)
        if (!Y[tj].reset && (winner < 0 || Y[tj].y > Y[winner].y))
            winner = tj;
}

/* Vigilance test: the match of input and top-down expectation. */
int reset_needed(void) {
    double unorm = 0.0, pnorm = 0.0;
    for (int ti = 0; ti < numf1s; ti++) {
        f1_layer[ti].R = (f1_layer[ti].U + c * f1_layer[ti].P) /
                         (e + sqrt(f1_layer[ti].U * f1_layer[ti].U) + c);
        unorm += f1_layer[ti].U * f1_layer[ti].U;
        pnorm += f1_layer[ti].R * f1_layer[ti].R;
    }
    return sqrt(pnorm) < rho * (unorm > 0.0 ? 1.0 : 0.0) - 0.5;
}

void train_winner(void) {
    for (int ti = 0; ti < numf1s; ti++) {
        tds[ti][winner] += 0.1 * (f1_layer[ti].P - tds[ti][winner]);
        bus[ti][winner] += 0.1 * (f1_layer[ti].P - bus[ti][winner]);
    }
}

int main(int argc, char **argv) {
    int n1 = argc > 1 ? atoi(argv[1]) : 1200;
    int n2 = argc > 2 ? atoi(argv[2]) : 20;
    int patterns = argc > 3 ? atoi(argv[3]) : 2;
    init_net(n1, n2, 99);
    int matched = 0;
    for (int p = 0; p < patterns; p++) {
        load_input(p);
        winner = -1;
        for (int iter = 0; iter < 4; iter++)
            compute_values_match();
        for (int tries = 0; tries < 3; tries++) {
            compute_y();
            compute_values_match();
            if (!reset_needed())
                break;
            Y[winner].reset = 1;
        }
        train_winner();
        matched += winner;
    }
    printf("winner sum %d, Y0 %f\n", matched, Y[0].y);
    for (int i = 0; i < numf1s; i++) {
        free(bus[i]);
        free(tds[i]);
    }
    free(bus);
    free(tds);
    free(inputs);
    free(Y);
    free(f1_layer);
    return 0;
}
