#include <stdio.h>
#include <stdlib.h>
#include <math.h>
typedef struct particle { double x, y, vx, vy; struct particle *next; } particle;
typedef struct { int n; double *u, *unew; } grid_t;
static particle *make_list(int n) {
  particle *head = NULL;
  for (int i = 0; i < n; i++) {
    particle *p = malloc(sizeof *p);
    p->x = (i % 97) / 97.0; p->y = (i % 89) / 89.0; p->vx = 0.01; p->vy = -0.02;
    p->next = head; head = p;
  }
  return head;
}
static void stencil(grid_t *g) {
  int n = g->n;
  for (int j = 1; j < n - 1; j++)
    for (int i = 1; i < n - 1; i++)
      g->unew[j * n + i] = 0.25 * (g->u[j * n + i - 1] + g->u[j * n + i + 1] + g->u[(j - 1) * n + i] + g->u[(j + 1) * n + i]);
  double *t = g->u; g->u = g->unew; g->unew = t;
}
static void push(particle *plist, const grid_t *g, double dt) {
  for (particle *p = plist; p; p = p->next) {
    int i = (int)(p->x * (g->n - 1)), j = (int)(p->y * (g->n - 1));
    double f = g->u[j * g->n + i];
    p->vx += dt * f * sin(p->y); p->vy -= dt * f * cos(p->x);
    p->x = fmod(p->x + dt * p->vx + 1.0, 1.0); p->y = fmod(p->y + dt * p->vy + 1.0, 1.0);
  }
}
int main(void) {
  grid_t grid; grid.n = 400;
  grid.u = calloc(grid.n * grid.n, sizeof(double)); grid.unew = calloc(grid.n * grid.n, sizeof(double));
  for (int i = 0; i < grid.n; i++) grid.u[i] = 1.0;
  particle *plist = make_list(200000);
  for (int step = 0; step < 150; step++) { stencil(&grid); push(plist, &grid, 1e-3); }
  double ek = 0;
  for (particle *p = plist; p; p = p->next) ek += p->vx * p->vx + p->vy * p->vy;
  printf("%f %f\n", ek, grid.u[grid.n * 2 + 3]);
  return 0;
}
