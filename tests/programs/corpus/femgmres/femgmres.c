/* femgmres: linear finite elements for the steady convection-diffusion
 * problem  -k lap(u) + b . grad(u) + c u = f  on the unit square with
 * u = 0 on the boundary, assembled into a CSR matrix and solved with
 * restarted GMRES (modified Gram-Schmidt, Givens rotations).
 *   usage: femgmres MESH_HEADER [restart] [max_outer]
 *
 * Expected ranking, derived from a by-function profile (2,528 samples):
 *   dot          45.3%  Gram-Schmidt coefficients h[j][k] and the norms
 *   ax_csr       29.6%  w = a v_k into the next Krylov vector v_{k+1}
 *   gmres itself 15.0%  the Gram-Schmidt updates of v, x += V y
 *   assemble      7.3%  (with its coefficient functions) a and f
 *   build_pattern 1.9%  ia, ja
 *  main:
 *  1. node_u   ~90%  the solution, computed by the whole GMRES solve
 *  2. a        ~7%   assemble and apply_dirichlet (the solve only reads it)
 *  3. f        small (the load vector, part of assemble), ia/ja ~2%
 *  gmres: v >= ax_csr's share, h >= most of dot's.
 * Must not rank high: nodes, elems (the header read by read_header and
 * checked by the guard), side, expected, iterations (the iteration count),
 * t0, t_assemble, t_solve (timers), mr, itr_max.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_ADJ 12

static double wall_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reads the node and element counts from a mesh header. */
static int read_header(const char *name, int *nodes, int *elems) {
  FILE *fp = fopen(name, "r");
  if (!fp)
    return 1;
  char line[256];
  *nodes = *elems = -1;
  while (fgets(line, sizeof line, fp)) {
    if (line[0] == '#')
      continue;
    char key[64];
    int value;
    if (sscanf(line, "%63s %d", key, &value) != 2)
      continue;
    if (strcmp(key, "nodes") == 0)
      *nodes = value;
    else if (strcmp(key, "elements") == 0)
      *elems = value;
  }
  fclose(fp);
  return *nodes < 0 || *elems < 0;
}

/* The structured triangulation the header describes. */
static void make_mesh(int side, double *node_xy, int *element_node) {
  const int m = side + 1;
  for (int j = 0; j < m; j++)
    for (int i = 0; i < m; i++) {
      node_xy[2 * (i + j * m)] = (double)i / side;
      node_xy[2 * (i + j * m) + 1] = (double)j / side;
    }
  int e = 0;
  for (int j = 0; j < side; j++)
    for (int i = 0; i < side; i++) {
      int n00 = i + j * m, n10 = n00 + 1, n01 = n00 + m, n11 = n01 + 1;
      element_node[3 * e] = n00;
      element_node[3 * e + 1] = n10;
      element_node[3 * e + 2] = n11;
      e++;
      element_node[3 * e] = n00;
      element_node[3 * e + 1] = n11;
      element_node[3 * e + 2] = n01;
      e++;
    }
}

/* The CSR pattern of the nodes' adjacency (each row sorted). */
static int build_pattern(int nodes, int elems, const int *element_node, int **ia_out,
                         int **ja_out) {
  int *deg = calloc((size_t)nodes, sizeof(int));
  int *adj = malloc(sizeof(int) * (size_t)nodes * MAX_ADJ);
  for (int e = 0; e < elems; e++)
    for (int a = 0; a < 3; a++) {
      int i = element_node[3 * e + a];
      for (int b = 0; b < 3; b++) {
        int j = element_node[3 * e + b], found = 0;
        for (int k = 0; k < deg[i]; k++)
          if (adj[i * MAX_ADJ + k] == j)
            found = 1;
        if (!found && deg[i] < MAX_ADJ)
          adj[i * MAX_ADJ + deg[i]++] = j;
      }
    }
  int *ia = malloc(sizeof(int) * (size_t)(nodes + 1));
  ia[0] = 0;
  for (int i = 0; i < nodes; i++)
    ia[i + 1] = ia[i] + deg[i];
  int *ja = malloc(sizeof(int) * (size_t)ia[nodes]);
  for (int i = 0; i < nodes; i++) {
    int *row = adj + i * MAX_ADJ;
    for (int k = 1; k < deg[i]; k++) /* insertion sort, rows are short */
      for (int l = k; l > 0 && row[l - 1] > row[l]; l--) {
        int t = row[l];
        row[l] = row[l - 1];
        row[l - 1] = t;
      }
    memcpy(ja + ia[i], row, sizeof(int) * (size_t)deg[i]);
  }
  free(deg);
  free(adj);
  *ia_out = ia;
  *ja_out = ja;
  return ia[nodes];
}

static int csr_find(const int *ia, const int *ja, int i, int j) {
  for (int k = ia[i]; k < ia[i + 1]; k++)
    if (ja[k] == j)
      return k;
  return -1;
}

/* The problem's data, evaluated at quadrature points. */
static double source(double x, double y) {
  return 10.0 * exp(-50.0 * ((x - 0.3) * (x - 0.3) + (y - 0.4) * (y - 0.4)));
}
static double conductivity(double x, double y) {
  return 0.01 * (1.0 + 0.5 * sin(6.283185307179586 * x) * sin(6.283185307179586 * y));
}
static void velocity(double x, double y, double *bx, double *by) {
  *bx = cos(3.141592653589793 * y);
  *by = 0.5 * sin(3.141592653589793 * x);
}

/* Element matrices of the P1 triangle with the 3-point edge-midpoint rule,
 * added into a and f. */
static void assemble(int elems, const double *node_xy, const int *element_node,
                     const int *ia, const int *ja, double *a, double *f) {
  static const double qbary[3][3] = {{0.5, 0.5, 0.0}, {0.0, 0.5, 0.5}, {0.5, 0.0, 0.5}};
  const double c = 0.1;
  for (int e = 0; e < elems; e++) {
    const int *en = element_node + 3 * e;
    double x[3], y[3];
    for (int q = 0; q < 3; q++) {
      x[q] = node_xy[2 * en[q]];
      y[q] = node_xy[2 * en[q] + 1];
    }
    double det = (x[1] - x[0]) * (y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]);
    double area = 0.5 * fabs(det);
    double dphidx[3] = {(y[1] - y[2]) / det, (y[2] - y[0]) / det, (y[0] - y[1]) / det};
    double dphidy[3] = {(x[2] - x[1]) / det, (x[0] - x[2]) / det, (x[1] - x[0]) / det};
    double ke[3][3] = {{0.0}}, fe[3] = {0.0, 0.0, 0.0};
    for (int qp = 0; qp < 3; qp++) {
      const double *phi = qbary[qp];
      double xq = phi[0] * x[0] + phi[1] * x[1] + phi[2] * x[2];
      double yq = phi[0] * y[0] + phi[1] * y[1] + phi[2] * y[2];
      double w = area / 3.0;
      double kq = conductivity(xq, yq), fq = source(xq, yq), bx, by;
      velocity(xq, yq, &bx, &by);
      for (int p = 0; p < 3; p++) {
        fe[p] += w * fq * phi[p];
        for (int q = 0; q < 3; q++)
          ke[p][q] += w * (kq * (dphidx[p] * dphidx[q] + dphidy[p] * dphidy[q]) +
                           phi[p] * (bx * dphidx[q] + by * dphidy[q]) + c * phi[p] * phi[q]);
      }
    }
    for (int p = 0; p < 3; p++) {
      f[en[p]] += fe[p];
      for (int q = 0; q < 3; q++)
        a[csr_find(ia, ja, en[p], en[q])] += ke[p][q];
    }
  }
}

/* u = 0 on the boundary: the row becomes the identity. */
static void apply_dirichlet(int side, const int *ia, const int *ja, double *a, double *f) {
  const int m = side + 1;
  for (int i = 0; i < m * m; i++) {
    int ix = i % m, iy = i / m;
    if (ix != 0 && iy != 0 && ix != side && iy != side)
      continue;
    for (int k = ia[i]; k < ia[i + 1]; k++)
      a[k] = ja[k] == i ? 1.0 : 0.0;
    f[i] = 0.0;
  }
}

static void ax_csr(int n, const int *ia, const int *ja, const double *a, const double *x,
                   double *w) {
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = ia[i]; k < ia[i + 1]; k++)
      s += a[k] * x[ja[k]];
    w[i] = s;
  }
}

static double dot(int n, const double *x, const double *y) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

static void mult_givens(double c, double s, int k, double *g) {
  double g1 = c * g[k] - s * g[k + 1];
  double g2 = s * g[k] + c * g[k + 1];
  g[k] = g1;
  g[k + 1] = g2;
}

/* Restarted GMRES(mr) for a x = rhs; x holds the initial guess on entry. */
static void gmres(int n, const int *ia, const int *ja, const double *a, double *x,
                  const double *rhs, int itr_max, int mr, double tol_abs, double tol_rel,
                  int *iterations, double *resid) {
  double *r = malloc(sizeof(double) * (size_t)n);
  double *v = malloc(sizeof(double) * (size_t)n * (mr + 1));
  double *h = malloc(sizeof(double) * (size_t)(mr + 1) * mr);
  double *c = malloc(sizeof(double) * (size_t)mr);
  double *s = malloc(sizeof(double) * (size_t)mr);
  double *g = malloc(sizeof(double) * (size_t)(mr + 1));
  double *y = malloc(sizeof(double) * (size_t)(mr + 1));
  const double delta = 1.0e-3;
  double rho = 0.0, rho_tol = 0.0;
  int itr = 0, k_copy = 0, total = 0;

  for (itr = 0; itr < itr_max; itr++) {
    ax_csr(n, ia, ja, a, x, r);
    for (int i = 0; i < n; i++)
      r[i] = rhs[i] - r[i];
    rho = sqrt(dot(n, r, r));
    if (itr == 0)
      rho_tol = rho * tol_rel;
    if (rho <= rho_tol && rho <= tol_abs)
      break;
    for (int i = 0; i < n; i++)
      v[i] = r[i] / rho;
    g[0] = rho;
    for (int i = 1; i <= mr; i++)
      g[i] = 0.0;
    memset(h, 0, sizeof(double) * (size_t)(mr + 1) * mr);

    for (int k = 0; k < mr; k++) {
      k_copy = k;
      double *vk = v + (size_t)k * n, *vk1 = v + (size_t)(k + 1) * n;
      ax_csr(n, ia, ja, a, vk, vk1);
      double av = sqrt(dot(n, vk1, vk1));
      for (int j = 0; j <= k; j++) {
        double *vj = v + (size_t)j * n;
        h[j * mr + k] = dot(n, vk1, vj);
        for (int i = 0; i < n; i++)
          vk1[i] -= h[j * mr + k] * vj[i];
      }
      h[(k + 1) * mr + k] = sqrt(dot(n, vk1, vk1));
      if (av + delta * h[(k + 1) * mr + k] == av) { /* lost orthogonality: once more */
        for (int j = 0; j <= k; j++) {
          double *vj = v + (size_t)j * n;
          double htmp = dot(n, vk1, vj);
          h[j * mr + k] += htmp;
          for (int i = 0; i < n; i++)
            vk1[i] -= htmp * vj[i];
        }
        h[(k + 1) * mr + k] = sqrt(dot(n, vk1, vk1));
      }
      if (h[(k + 1) * mr + k] != 0.0)
        for (int i = 0; i < n; i++)
          vk1[i] /= h[(k + 1) * mr + k];
      /* apply the previous rotations to the new column, then a new one */
      for (int j = 0; j < k; j++) {
        double h1 = c[j] * h[j * mr + k] - s[j] * h[(j + 1) * mr + k];
        double h2 = s[j] * h[j * mr + k] + c[j] * h[(j + 1) * mr + k];
        h[j * mr + k] = h1;
        h[(j + 1) * mr + k] = h2;
      }
      double mu = sqrt(h[k * mr + k] * h[k * mr + k] + h[(k + 1) * mr + k] * h[(k + 1) * mr + k]);
      c[k] = h[k * mr + k] / mu;
      s[k] = -h[(k + 1) * mr + k] / mu;
      h[k * mr + k] = c[k] * h[k * mr + k] - s[k] * h[(k + 1) * mr + k];
      h[(k + 1) * mr + k] = 0.0;
      mult_givens(c[k], s[k], k, g);
      rho = fabs(g[k + 1]);
      total++;
      if (rho <= rho_tol && rho <= tol_abs)
        break;
    }
    /* y = H \ g, x += V y */
    int k = k_copy;
    y[k] = g[k] / h[k * mr + k];
    for (int i = k - 1; i >= 0; i--) {
      y[i] = g[i];
      for (int j = i + 1; j <= k; j++)
        y[i] -= h[i * mr + j] * y[j];
      y[i] /= h[i * mr + i];
    }
    for (int j = 0; j <= k; j++) {
      const double *vj = v + (size_t)j * n;
      for (int i = 0; i < n; i++)
        x[i] += y[j] * vj[i];
    }
    if (rho <= rho_tol && rho <= tol_abs)
      break;
  }
  *iterations = total;
  *resid = rho;
  free(r);
  free(v);
  free(h);
  free(c);
  free(s);
  free(g);
  free(y);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: femgmres MESH_HEADER [restart] [max_outer]\n");
    return 2;
  }
  const char *name = argv[1];
  int mr = argc > 2 ? atoi(argv[2]) : 30;
  int itr_max = argc > 3 ? atoi(argv[3]) : 7;

  int nodes, elems;
  if (read_header(name, &nodes, &elems) != 0) {
    fprintf(stderr, "femgmres: cannot read the header of %s\n", name);
    exit(1);
  }
  int side = (int)(sqrt((double)nodes) + 0.5) - 1;
  int expected = 2 * side * side;
  if (elems != expected || (side + 1) * (side + 1) != nodes) {
    fprintf(stderr, "femgmres: %s: %d elements, expected %d\n", name, elems, expected);
    exit(1);
  }

  double t0 = wall_time();
  double *node_xy = malloc(sizeof(double) * 2 * (size_t)nodes);
  int *element_node = malloc(sizeof(int) * 3 * (size_t)elems);
  make_mesh(side, node_xy, element_node);
  int *ia, *ja;
  int nz_num = build_pattern(nodes, elems, element_node, &ia, &ja);
  double *a = calloc((size_t)nz_num, sizeof(double));
  double *f = calloc((size_t)nodes, sizeof(double));
  assemble(elems, node_xy, element_node, ia, ja, a, f);
  apply_dirichlet(side, ia, ja, a, f);
  double t_assemble = wall_time() - t0;

  double *node_u = calloc((size_t)nodes, sizeof(double));
  int iterations = 0;
  double resid = 0.0;
  t0 = wall_time();
  gmres(nodes, ia, ja, a, node_u, f, itr_max, mr, 1.0e-10, 1.0e-10, &iterations, &resid);
  double t_solve = wall_time() - t0;

  double umax = 0.0, usum = 0.0;
  for (int i = 0; i < nodes; i++) {
    umax = fmax(umax, node_u[i]);
    usum += node_u[i];
  }
  printf("femgmres: %d nodes, %d elements, %d nonzeros, %d iterations, residual %.6e\n",
         nodes, elems, nz_num, iterations, resid);
  printf("femgmres: max u %.10f, mean u %.10f\n", umax, usum / nodes);
  printf("femgmres: assembly %.3f s, solve %.3f s\n", t_assemble, t_solve);
  free(node_xy);
  free(element_node);
  free(ia);
  free(ja);
  free(a);
  free(f);
  free(node_u);
  return 0;
}
