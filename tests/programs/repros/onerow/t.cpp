// onerow: one row per data structure, whatever names reach it.
//  - a binary search tree of cells, walked by a cursor (`n = n->left`);
//  - two grid buffers swapped every sweep through a temporary pointer;
//  - a std::vector of particles updated through iterators and references.
// Expected: rows `tree` (walks: ~20%), `u`/`unew` (the sweeps: ~45%), `parts`
// (the particle update: ~30%); no rows for the cursor `n`, the swap's `tmp`,
// the iterator `it` or the reference `p`; `tree` is also reached as the cursor.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

struct Node {
  double key;
  double weight;
  Node *left;
  Node *right;
};

struct Particle {
  double x, v, f;
};

static Node *insert(Node *root, double key) {
  Node *fresh = new Node{key, 0.0, nullptr, nullptr};
  if (!root) return fresh;
  Node *n = root;
  for (;;) {
    Node **next = key < n->key ? &n->left : &n->right;
    if (!*next) {
      *next = fresh;
      return root;
    }
    n = *next;
  }
}

// Walks from the root to the key's leaf, adding to the weights on the way.
static void deposit(Node *tree, double key, double w) {
  for (Node *n = tree; n; n = key < n->key ? n->left : n->right) n->weight += w * std::sqrt(n->key + 1.0);
}

static void sweep(const double *u, double *unew, int nx) {
  for (int j = 1; j < nx - 1; j++)
    for (int i = 1; i < nx - 1; i++)
      unew[j * nx + i] =
          0.25 * (u[(j - 1) * nx + i] + u[(j + 1) * nx + i] + u[j * nx + i - 1] + u[j * nx + i + 1]);
}

static void push(std::vector<Particle> &parts, double dt) {
  for (auto it = parts.begin(); it != parts.end(); ++it) {
    it->f = -std::sin(it->x) * 0.5;
    it->v += dt * it->f;
  }
  for (Particle &p : parts) p.x += dt * p.v;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 300;
  const int nx = 192;
  double *u = (double *)calloc(nx * nx, sizeof(double));
  double *unew = (double *)calloc(nx * nx, sizeof(double));
  for (int i = 0; i < nx; i++) u[i] = unew[i] = 1.0;
  Node *tree = nullptr;
  unsigned seed = 7;
  for (int k = 0; k < 4000; k++) {
    seed = seed * 1103515245u + 12345u;
    tree = insert(tree, (seed >> 8) % 100000 / 100.0);
  }
  std::vector<Particle> parts(60000);
  for (size_t k = 0; k < parts.size(); k++) parts[k] = Particle{0.001 * k, 0.0, 0.0};
  for (int s = 0; s < steps; s++) {
    sweep(u, unew, nx);
    double *tmp = u;
    u = unew;
    unew = tmp;
    for (int q = 0; q < 1500; q++) deposit(tree, (q * 37 % 1000) / 10.0, 0.01);
    push(parts, 0.001);
  }
  double sum = 0;
  for (auto &p : parts) sum += p.x;
  printf("%g %g %g\n", u[nx * nx / 2], tree->weight, sum);
  return 0;
}
