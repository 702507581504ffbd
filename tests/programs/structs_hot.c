/* Struct containers on a real run (structs.c with work in it): the hot loop
 * in move() writes the positions inside an array of structs inside the
 * World in main; kick() writes the velocities (about a quarter of the time);
 * the energy is computed from both at the end. Steps are the first argument. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double x, y;
} Vec2;
typedef struct {
    Vec2 pos;
    Vec2 vel;
    int id;
} Particle;
typedef struct {
    Particle *parts;
    int n;
    double spring;
} World;

double g_energy;

static void move(World *w, double dt) {
    for (int i = 0; i < w->n; i++) {
        w->parts[i].pos.x += dt * w->parts[i].vel.x + 1e-9 * sin(w->parts[i].pos.y);
        w->parts[i].pos.y += dt * w->parts[i].vel.y;
    }
}

static void kick(World *w, double dt) {
    for (int i = 0; i < w->n; i++) {
        w->parts[i].vel.x -= dt * w->spring * w->parts[i].pos.x + 1e-9 * sqrt(fabs(w->parts[i].vel.y));
        w->parts[i].vel.y -= dt * w->spring * w->parts[i].pos.y + 1e-9 * sqrt(fabs(w->parts[i].vel.x));
    }
}

static double energy(const World *w) {
    double e = 0;
    for (int i = 0; i < w->n; i++) {
        const Particle *p = &w->parts[i];
        e += 0.5 * (p->vel.x * p->vel.x + p->vel.y * p->vel.y) +
             0.5 * w->spring * (p->pos.x * p->pos.x + p->pos.y * p->pos.y);
    }
    return e;
}

int main(int argc, char **argv) {
    long steps = argc > 1 ? atol(argv[1]) : 2000;
    World world;
    world.n = 1 << 13;
    world.spring = 0.5;
    world.parts = malloc(sizeof(Particle) * world.n);
    for (int i = 0; i < world.n; i++) {
        world.parts[i].pos.x = i * 1e-3;
        world.parts[i].pos.y = 1.0 - i * 1e-3;
        world.parts[i].vel.x = 0.0;
        world.parts[i].vel.y = 0.1;
        world.parts[i].id = i;
    }
    for (long s = 0; s < steps; s++) {
        move(&world, 0.01);
        kick(&world, 0.01);
    }
    g_energy = energy(&world);
    printf("%f %f\n", world.parts[7].pos.x, g_energy);
    free(world.parts);
    return 0;
}
