/* tree.c: the node pool and the octree: built by recursive insertion of
 * every body of the gathered copy, then an upward pass for the centers of
 * mass. */
#include <stdio.h>
#include <stdlib.h>
#include "tree.h"

void pool_init(NodePool *p, int capacity) {
  p->nodes = malloc((size_t)capacity * sizeof(Node));
  if (!p->nodes) {
    fprintf(stderr, "bhtree: cannot allocate %d tree nodes\n", capacity);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  p->capacity = capacity;
  p->next_free = 0;
  p->max_depth = 0;
}

void pool_free(NodePool *p) {
  free(p->nodes);
  p->nodes = NULL;
  p->capacity = p->next_free = 0;
}

/* hand out the next node of the arena */
Node *pool_alloc(NodePool *p) {
  if (p->next_free == p->capacity) {
    fprintf(stderr, "bhtree: node pool exhausted (%d nodes)\n", p->capacity);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return &p->nodes[p->next_free++];
}

static Node *new_node(NodePool *p, const double center[3], double half) {
  Node *n = pool_alloc(p);
  for (int k = 0; k < 8; k++)
    n->child[k] = NULL;
  for (int d = 0; d < 3; d++) {
    n->center[d] = center[d];
    n->com[d] = 0.0;
  }
  n->half = half;
  n->mass = 0.0;
  n->count = 0;
  n->body = -1;
  return n;
}

static int octant(const Node *n, const double x[3]) {
  return (x[0] >= n->center[0]) | (x[1] >= n->center[1]) << 1 |
         (x[2] >= n->center[2]) << 2;
}

/* put body b into the octant of n it falls in, creating that child */
static void insert_below(NodePool *pool, Node *n, int b, const double *gpos,
                         int depth) {
  int oct = octant(n, &gpos[4 * b]);
  if (!n->child[oct]) {
    double h = 0.5 * n->half, c[3];
    for (int d = 0; d < 3; d++)
      c[d] = n->center[d] + (((oct >> d) & 1) ? h : -h);
    n->child[oct] = new_node(pool, c, h);
  }
  tree_insert(pool, n->child[oct], b, gpos, depth + 1);
}

void tree_insert(NodePool *pool, Node *node, int b, const double *gpos,
                 int depth) {
  if (depth > pool->max_depth)
    pool->max_depth = depth;
  if (node->count == 0) { /* an empty leaf takes the body */
    node->body = b;
    node->count = 1;
    return;
  }
  if (depth >= MAX_DEPTH) {
    fprintf(stderr, "bhtree: bodies %d and %d coincide\n", b, node->body);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  if (node->count == 1) { /* split the leaf: its body moves down */
    int old = node->body;
    node->body = -1;
    insert_below(pool, node, old, gpos, depth);
  }
  node->count++;
  insert_below(pool, node, b, gpos, depth);
}

/* the root cube around all bodies, then every body inserted in order */
Node *tree_build(NodePool *pool, const double *gpos, int n) {
  double lo[3], hi[3], center[3], half = 0.0;
  for (int d = 0; d < 3; d++)
    lo[d] = hi[d] = gpos[d];
  for (int b = 1; b < n; b++) {
    const double *x = &gpos[4 * b];
    for (int d = 0; d < 3; d++) {
      if (x[d] < lo[d]) lo[d] = x[d];
      if (x[d] > hi[d]) hi[d] = x[d];
    }
  }
  for (int d = 0; d < 3; d++) {
    center[d] = 0.5 * (lo[d] + hi[d]);
    if (0.5 * (hi[d] - lo[d]) > half)
      half = 0.5 * (hi[d] - lo[d]);
  }
  half = half * 1.0001 + 1e-12;

  pool->next_free = 0;
  pool->max_depth = 0;
  Node *root = new_node(pool, center, half);
  for (int b = 0; b < n; b++)
    tree_insert(pool, root, b, gpos, 0);
  return root;
}

/* upward pass: mass and center of mass of every cell */
void tree_moments(Node *node, const double *gpos) {
  if (node->count == 1) {
    const double *x = &gpos[4 * node->body];
    node->mass = x[3];
    for (int d = 0; d < 3; d++)
      node->com[d] = x[d];
    return;
  }
  double m = 0.0, mx[3] = {0.0, 0.0, 0.0};
  for (int k = 0; k < 8; k++) {
    Node *c = node->child[k];
    if (!c)
      continue;
    tree_moments(c, gpos);
    m += c->mass;
    for (int d = 0; d < 3; d++)
      mx[d] += c->mass * c->com[d];
  }
  node->mass = m;
  for (int d = 0; d < 3; d++)
    node->com[d] = m > 0.0 ? mx[d] / m : node->center[d];
}
