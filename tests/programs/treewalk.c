/* A tree walk's opening test: the distance `r2` is computed only to decide
 * whether one node interacts with a body (`interact` adds into the body's
 * acceleration) or is opened. The test's lines are the accelerations'
 * (implicit) blame, and `r2` is a scalar derived from that walk. */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
  double com[3];
  double half;
  int child[2];
} Node;

static void interact(const double *com, const double *pos, double *acc) {
  for (int d = 0; d < 3; d++)
    acc[d] += com[d] - pos[d]; /* interact */
}

static void walk(const Node *nodes, int k, const double *pos, double *acc) {
  const Node *n = &nodes[k];
  double dx = n->com[0] - pos[0];
  double r2 = dx * dx; /* opening test */
  if (n->child[0] < 0 || n->half * n->half < 0.25 * r2) {
    interact(n->com, pos, acc);
    return;
  }
  walk(nodes, n->child[0], pos, acc);
  walk(nodes, n->child[1], pos, acc);
}

int main(void) {
  int nn = 7, nb = 16;
  Node *nodes = calloc(nn, sizeof *nodes);
  double *pos = calloc(3 * nb, sizeof *pos), *acc = calloc(3 * nb, sizeof *acc);
  for (int k = 0; k < nn; k++) {
    nodes[k].com[0] = k;
    nodes[k].half = 1.0 / (k + 1);
    nodes[k].child[0] = 2 * k + 1 < nn ? 2 * k + 1 : -1;
    nodes[k].child[1] = 2 * k + 2 < nn ? 2 * k + 2 : -1;
  }
  for (int i = 0; i < 3 * nb; i++)
    pos[i] = i * 0.1;
  for (int i = 0; i < nb; i++)
    walk(nodes, 0, &pos[3 * i], &acc[3 * i]); /* forces */
  printf("%g\n", acc[0]);
  free(nodes);
  free(pos);
  free(acc);
  return 0;
}
