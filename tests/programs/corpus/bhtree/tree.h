/* tree.h: the octree, its nodes handed out by a pool allocator. */
#ifndef BHTREE_TREE_H
#define BHTREE_TREE_H

#include "nbody.h"

#define MAX_DEPTH 60

typedef struct Node Node;
struct Node {
  Node *child[8];   /* octants, NULL where empty */
  double com[3];    /* center of mass */
  double mass;      /* total mass below */
  double center[3]; /* center of the cell */
  double half;      /* half the side of the cell */
  int count;        /* bodies below */
  int body;         /* the body of a leaf (count == 1), else -1 */
};

/* every node of a tree comes out of one arena, reset at each build */
typedef struct {
  Node *nodes;
  int capacity;
  int next_free;
  int max_depth; /* of the last build */
} NodePool;

/* tree.c */
void pool_init(NodePool *p, int capacity);
void pool_free(NodePool *p);
Node *pool_alloc(NodePool *p);
void tree_insert(NodePool *pool, Node *node, int b, const double *gpos,
                 int depth);
Node *tree_build(NodePool *pool, const double *gpos, int n);
void tree_moments(Node *node, const double *gpos);

/* force.c */
void walk_force(const Node *n, const double pos[3], int self, double acc[3],
                double *pot, long *interactions);
void compute_forces(const Node *root, Body *bodies, int nlocal, int first,
                    long *interactions);
void direct_force(const double *gpos, int n, int self, double acc[3]);

/* diag.c */
void stats_update(RunStats *s, const NodePool *pool, long interactions);

#endif
