typedef struct { double x, y; } Vec2;
typedef struct { Vec2 pos; Vec2 vel; int id; } Particle;
typedef struct { Particle parts[64]; int n; double *temperature; } World;

double g_energy;

void step(World *w, double dt)
{
    for (int i = 0; i < w->n; i++) {
        w->parts[i].pos.x += dt * w->parts[i].vel.x;
        w->parts[i].pos.y += dt * w->parts[i].vel.y;
    }
    w->temperature[0] = dt;
    g_energy = dt * 2;
}

double kinetic(const World *w)
{
    double e = 0;
    for (int i = 0; i < w->n; i++)
        e += w->parts[i].vel.x * w->parts[i].vel.x;
    return e;
}

int main(void)
{
    World world;
    world.n = 3;
    step(&world, 0.1);
    return (int)kinetic(&world);
}
