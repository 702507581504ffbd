/* A small tree code (Barnes-Hut-like) with an adaptive-mesh hydro part, the
 * real program behind the synthetic runs of bench/scale.sh: its call graph
 * has a recursive tree walk (stacks 20-60 deep) under a time-step driver, and
 * every function passes pointers to the state it updates, so post's transfer
 * functions lift blame up the stacks. Not meant to be run at scale; the
 * generator only takes its code addresses and call sites. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double x[3], v[3], a[3], m;
} Body;

typedef struct Node {
    double center[3], mass, size;
    struct Node *child[8];
    int body;
} Node;

typedef struct {
    int n, nx;
    Body *bodies;
    double *rho, *mom, *energy, *flux;
    double theta, dt, t;
} Sim;

static __attribute__((noinline)) void pair_force(Body *b, const double *c, double m) {
    double d[3], r2 = 1e-9;
    for (int k = 0; k < 3; k++) {
        d[k] = c[k] - b->x[k];
        r2 += d[k] * d[k];
    }
    double inv = m / (r2 * sqrt(r2));
    for (int k = 0; k < 3; k++)
        b->a[k] += d[k] * inv;
}

static __attribute__((noinline)) int open_node(const Node *n, const Body *b, double theta) {
    double d = 0;
    for (int k = 0; k < 3; k++)
        d += (n->center[k] - b->x[k]) * (n->center[k] - b->x[k]);
    return n->size * n->size > theta * theta * d;
}

static __attribute__((noinline)) void walk(const Node *n, Body *b, double theta, int depth) {
    if (!n || n->mass == 0)
        return;
    if (n->body >= 0 || !open_node(n, b, theta)) {
        pair_force(b, n->center, n->mass);
        return;
    }
    for (int c = 0; c < 4; c++)
        walk(n->child[c], b, theta, depth + 1);
    for (int c = 4; c < 8; c++)
        walk(n->child[c], b, theta, depth + 1);
}

static __attribute__((noinline)) void insert(Node *n, Body *bodies, int i, int depth) {
    Body *b = &bodies[i];
    n->mass += b->m;
    for (int k = 0; k < 3; k++)
        n->center[k] += b->x[k] * b->m;
    if (n->body < 0 && n->child[0] == NULL && n->mass == b->m) {
        n->body = i;
        return;
    }
    int c = (b->x[0] > 0) | (b->x[1] > 0) << 1 | (b->x[2] > 0) << 2;
    if (!n->child[c]) {
        n->child[c] = calloc(1, sizeof(Node));
        n->child[c]->body = -1;
        n->child[c]->size = n->size / 2;
    }
    if (depth < 64)
        insert(n->child[c], bodies, i, depth + 1);
}

static __attribute__((noinline)) Node *build_tree(Sim *s) {
    Node *root = calloc(1, sizeof(Node));
    root->body = -1;
    root->size = 1;
    for (int i = 0; i < s->n; i++)
        insert(root, s->bodies, i, 0);
    return root;
}

static __attribute__((noinline)) void gravity(Sim *s, Node *root) {
    for (int i = 0; i < s->n; i++) {
        for (int k = 0; k < 3; k++)
            s->bodies[i].a[k] = 0;
        walk(root, &s->bodies[i], s->theta, 0);
    }
}

static __attribute__((noinline)) void kick_drift(Sim *s) {
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < 3; k++) {
            s->bodies[i].v[k] += s->dt * s->bodies[i].a[k];
            s->bodies[i].x[k] += s->dt * s->bodies[i].v[k];
        }
}

static __attribute__((noinline)) double riemann(double rl, double rr, double ml, double mr) {
    double ul = ml / (rl + 1e-12), ur = mr / (rr + 1e-12);
    return 0.5 * (ml * ul + mr * ur) - 0.5 * fabs(ul + ur) * (rr - rl);
}

static __attribute__((noinline)) void sweep(Sim *s, int stride, double *flux) {
    for (int i = 0; i + stride < s->nx * s->nx; i++)
        flux[i] = riemann(s->rho[i], s->rho[i + stride], s->mom[i], s->mom[i + stride]);
    for (int i = stride; i < s->nx * s->nx; i++)
        s->mom[i] -= s->dt * (flux[i] - flux[i - stride]);
}

static __attribute__((noinline)) void refine(Sim *s, int level, int lo, int hi) {
    if (level > 40 || hi - lo < 2) {
        sweep(s, 1, s->flux);
        return;
    }
    int mid = (lo + hi) / 2;
    if (s->rho[mid] > s->rho[lo])
        refine(s, level + 1, lo, mid);
    else
        refine(s, level + 1, mid, hi);
}

static __attribute__((noinline)) void hydro(Sim *s) {
    sweep(s, 1, s->flux);
    sweep(s, s->nx, s->flux);
    refine(s, 0, 0, s->nx * s->nx);
    for (int i = 0; i < s->nx * s->nx; i++)
        s->energy[i] += s->dt * s->mom[i] * s->mom[i] / (s->rho[i] + 1e-12);
}

static __attribute__((noinline)) void free_tree(Node *n) {
    if (!n)
        return;
    for (int c = 0; c < 8; c++)
        free_tree(n->child[c]);
    free(n);
}

static __attribute__((noinline)) void step(Sim *s) {
    Node *root = build_tree(s);
    gravity(s, root);
    kick_drift(s);
    hydro(s);
    free_tree(root);
    s->t += s->dt;
}

static __attribute__((noinline)) void run(Sim *s, int steps) {
    for (int i = 0; i < steps; i++)
        step(s);
}

int main(int argc, char **argv) {
    Sim s = {.n = argc > 1 ? atoi(argv[1]) : 2000, .nx = 64, .theta = 0.5, .dt = 1e-3};
    s.bodies = calloc(s.n, sizeof(Body));
    s.rho = calloc(s.nx * s.nx, sizeof(double));
    s.mom = calloc(s.nx * s.nx, sizeof(double));
    s.energy = calloc(s.nx * s.nx, sizeof(double));
    s.flux = calloc(s.nx * s.nx, sizeof(double));
    srand(1);
    for (int i = 0; i < s.n; i++) {
        for (int k = 0; k < 3; k++)
            s.bodies[i].x[k] = rand() / (double)RAND_MAX - 0.5;
        s.bodies[i].m = 1.0 / s.n;
    }
    for (int i = 0; i < s.nx * s.nx; i++)
        s.rho[i] = 1 + (i % 7);
    run(&s, argc > 2 ? atoi(argv[2]) : 3);
    printf("t=%g a0=%g e0=%g\n", s.t, s.bodies[0].a[0], s.energy[0]);
    return 0;
}
