/* graph.c: a deterministic pseudo-random power-law graph, generated edge by
 * edge (every rank walks the same global edge stream and keeps the edges
 * whose source it owns), then compressed into CSR rows by a counting sort. */
#include <stdio.h>
#include <stdlib.h>
#include "graph.h"

typedef struct {
  int *src; /* local source index */
  int *dst; /* global target id */
  long n, cap;
} EdgeList;

static unsigned long long splitmix64(unsigned long long x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* Uniform in [0, 1) from the top 53 bits. */
static double unit(unsigned long long h) {
  return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* A bijection of [0, 2^scale): spreads the heavy low ids over the ranks. */
static int scramble(unsigned long long x, int scale) {
  const unsigned long long mask = (1ULL << scale) - 1;
  x = (x * 0x2545F491ULL) & mask;
  x ^= x >> (scale / 2 + 1);
  x = (x * 0x9E3779B1ULL) & mask;
  x ^= x >> (scale / 3 + 1);
  return (int)x;
}

/* Skewed vertex choice: P(id) falls like id^(-1/2) before the scramble. */
static int skewed_vertex(unsigned long long h, int scale) {
  double r = unit(h);
  unsigned long long id = (unsigned long long)(r * r * (double)(1ULL << scale));
  return scramble(id, scale);
}

static int is_sink(int v) {
  unsigned long long h = splitmix64(g_cfg.seed ^ (0xD1B54A32D192ED03ULL * (unsigned long long)(v + 1)));
  return (int)(h % 100) < g_cfg.sink_percent;
}

static void edges_push(EdgeList *el, int src, int dst) {
  if (el->n == el->cap) {
    el->cap = el->cap ? 2 * el->cap : 1024;
    el->src = realloc(el->src, (size_t)el->cap * sizeof(int));
    el->dst = realloc(el->dst, (size_t)el->cap * sizeof(int));
    if (!el->src || !el->dst) {
      fprintf(stderr, "prgraph: out of memory for %ld edges\n", el->cap);
      exit(1);
    }
  }
  el->src[el->n] = src;
  el->dst[el->n] = dst;
  el->n++;
}

/* The global edge stream, edges whose source is local kept in stream order. */
static void generate_edges(const Partition *part, EdgeList *el) {
  const int scale = g_cfg.scale;
  const long nedges_global = (long)g_cfg.edge_factor << scale;
  const int lo = part->first, hi = part->first + part->nlocal;
  for (long e = 0; e < nedges_global; e++) {
    unsigned long long h = splitmix64(g_cfg.seed + 2 * (unsigned long long)e);
    int u = skewed_vertex(h, scale);
    if (u < lo || u >= hi)
      continue;
    unsigned long long h2 = splitmix64(h ^ 0xA0761D6478BD642FULL);
    int v;
    if ((int)(h2 % 100) < g_cfg.local_percent) {
      /* a link to a nearby id (the same "site"): short offsets */
      int off = 1 + (int)((h2 >> 8) % (unsigned)g_cfg.window);
      v = (int)(((unsigned)u + ((h2 >> 40) & 1 ? (unsigned)off : (1u << scale) - (unsigned)off)) & ((1u << scale) - 1));
    } else {
      v = skewed_vertex(splitmix64(h2), scale);
    }
    if (v == u || is_sink(u))
      continue;
    edges_push(el, u - lo, v);
  }
}

Graph *graph_create(const Partition *part) {
  Graph *g = malloc(sizeof *g);
  if (!g)
    return NULL;
  g->nglobal = part->nglobal;
  g->nlocal = part->nlocal;
  g->first = part->first;

  EdgeList el = {NULL, NULL, 0, 0};
  generate_edges(part, &el);
  g->nedges = el.n;

  /* counting sort of the edge list by source into the CSR rows */
  g->row_ptr = calloc((size_t)g->nlocal + 1, sizeof(long));
  g->outdeg = calloc((size_t)g->nlocal, sizeof(int));
  g->col_idx = malloc((size_t)(el.n > 0 ? el.n : 1) * sizeof(int));
  for (long e = 0; e < el.n; e++)
    g->outdeg[el.src[e]]++;
  for (int u = 0; u < g->nlocal; u++)
    g->row_ptr[u + 1] = g->row_ptr[u] + g->outdeg[u];
  long *cursor = malloc((size_t)(g->nlocal > 0 ? g->nlocal : 1) * sizeof(long));
  for (int u = 0; u < g->nlocal; u++)
    cursor[u] = g->row_ptr[u];
  for (long e = 0; e < el.n; e++)
    g->col_idx[cursor[el.src[e]]++] = el.dst[e];
  free(cursor);
  free(el.src);
  free(el.dst);
  return g;
}

void graph_free(Graph *g) {
  if (!g)
    return;
  free(g->row_ptr);
  free(g->col_idx);
  free(g->outdeg);
  free(g);
}

void graph_summary(const Graph *g, MPI_Comm comm, long *nedges_all,
                   int *ndangling_all, int *maxdeg_all) {
  int ndangling = 0, maxdeg = 0;
  for (int u = 0; u < g->nlocal; u++) {
    if (g->outdeg[u] == 0)
      ndangling++;
    if (g->outdeg[u] > maxdeg)
      maxdeg = g->outdeg[u];
  }
  MPI_Allreduce(&g->nedges, nedges_all, 1, MPI_LONG, MPI_SUM, comm);
  MPI_Allreduce(&ndangling, ndangling_all, 1, MPI_INT, MPI_SUM, comm);
  MPI_Allreduce(&maxdeg, maxdeg_all, 1, MPI_INT, MPI_MAX, comm);
}
