/* xs.c: the cross-section table and its lookups.
 *
 * The data are synthetic but shaped like evaluated data: a potential
 * scattering plateau, 1/v absorption (and fission for the fissile nuclides)
 * below the resonance region, single-level Breit-Wigner resonances between
 * 1 eV and 20 keV, and a smooth fast region. Every nuclide has its own
 * energy grid, so a macroscopic lookup does one binary search per nuclide
 * of the material, as codes without a unionized grid do. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xs.h"

XsTable g_xs;

#define E_THERMAL 0.0253

typedef struct {
  const char *name;
  double awr;
  double sigma_pot; /* potential scattering (barns) */
  double capture_th; /* capture at 0.0253 eV */
  double fission_th; /* fission at 0.0253 eV */
  double nu;
  int n_res;
} NuclideSpec;

static const NuclideSpec specs[] = {
    {"U234", 232.03, 10.0, 100.0, 0.0, 0.0, 10},
    {"U235", 233.02, 11.5, 99.0, 585.0, 2.43, 24},
    {"U236", 234.02, 8.5, 5.1, 0.0, 0.0, 10},
    {"U238", 236.01, 9.3, 2.7, 0.0, 0.0, 20},
    {"Pu239", 236.99, 7.9, 270.0, 750.0, 2.87, 24},
    {"Pu240", 237.99, 7.5, 290.0, 0.0, 0.0, 12},
    {"Pu241", 238.98, 10.5, 360.0, 1010.0, 2.93, 16},
    {"O16", 15.86, 3.8, 0.0002, 0.0, 0.0, 2},
    {"Xe135", 133.75, 4.0, 2.6e6, 0.0, 0.0, 4},
    {"Sm149", 147.64, 8.0, 4.0e4, 0.0, 0.0, 6},
    {"Nd143", 141.70, 8.0, 325.0, 0.0, 0.0, 8},
    {"Cs133", 131.78, 5.0, 29.0, 0.0, 0.0, 8},
    {"H1", 0.9992, 20.4, 0.332, 0.0, 0.0, 0},
    {"B10", 9.927, 2.2, 3840.0, 0.0, 0.0, 1},
    {"Zr90", 89.13, 6.5, 0.011, 0.0, 0.0, 6},
    {"Zr91", 90.12, 9.5, 1.2, 0.0, 0.0, 8},
    {"Zr92", 91.11, 7.0, 0.2, 0.0, 0.0, 6},
    {"Zr94", 93.10, 7.5, 0.05, 0.0, 0.0, 6},
    {"Fe56", 55.45, 12.0, 2.6, 0.0, 0.0, 6},
};

static int find_nuclide(const char *name) {
  for (int i = 0; i < g_xs.n_nuclides; i++)
    if (strcmp(g_xs.nuclides[i].name, name) == 0)
      return i;
  fprintf(stderr, "vtrans: no nuclide %s\n", name);
  exit(1);
}

/* A private generator for the data, so the table does not depend on the
 * transport streams. */
static double data_uniform(unsigned long long *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) * (1.0 / 9007199254740992.0);
}

static void make_nuclide(Nuclide *nuc, const NuclideSpec *spec, int n,
                         unsigned long long *seed) {
  double res_e[32], res_gn[32], res_gg[32], res_peak[32];
  snprintf(nuc->name, sizeof nuc->name, "%s", spec->name);
  nuc->n_points = n;
  nuc->awr = spec->awr;
  nuc->fissile = spec->fission_th > 0.0;
  nuc->energy = malloc(6 * (size_t)n * sizeof(double));
  nuc->total = nuc->energy + n;
  nuc->elastic = nuc->total + n;
  nuc->absorption = nuc->elastic + n;
  nuc->fission = nuc->absorption + n;
  nuc->nu = nuc->fission + n;

  for (int r = 0; r < spec->n_res; r++) {
    res_e[r] = exp(log(1.0) + data_uniform(seed) * (log(2.0e4) - log(1.0)));
    res_gn[r] = 1.0e-3 * res_e[r] * (0.2 + data_uniform(seed));
    res_gg[r] = 0.03 + 0.02 * data_uniform(seed);
    res_peak[r] = 2.0e3 * (0.5 + data_uniform(seed)) / (1.0 + 0.01 * r);
  }

  /* a log-spaced grid with jitter, refined where the resonances are */
  double lmin = log(g_xs.e_min), lmax = log(g_xs.e_max);
  for (int i = 0; i < n; i++) {
    double f = (i + 0.5 * data_uniform(seed)) / (double)n;
    nuc->energy[i] = exp(lmin + f * (lmax - lmin));
  }
  nuc->energy[0] = g_xs.e_min;
  nuc->energy[n - 1] = g_xs.e_max;

  for (int i = 0; i < n; i++) {
    double e = nuc->energy[i];
    double v_ratio = sqrt(E_THERMAL / e);
    double cap = spec->capture_th * v_ratio;
    double fis = spec->fission_th * v_ratio;
    double el = spec->sigma_pot;
    for (int r = 0; r < spec->n_res; r++) {
      double gamma = res_gn[r] + res_gg[r];
      double x = 2.0 * (e - res_e[r]) / gamma;
      double shape = 1.0 / (1.0 + x * x);
      cap += res_peak[r] * (res_gg[r] / gamma) * shape;
      el += 0.1 * res_peak[r] * (res_gn[r] / gamma) * shape;
      if (nuc->fissile)
        fis += 0.5 * res_peak[r] * (res_gg[r] / gamma) * shape;
    }
    if (e > 1.0e5) { /* fast region: smooth, small */
      double s = 1.0e5 / e;
      cap *= s;
      fis = nuc->fissile ? 1.2 + 0.3 * s : 0.0;
      el = spec->sigma_pot * (0.4 + 0.6 * s);
    }
    nuc->elastic[i] = el;
    nuc->fission[i] = fis;
    nuc->absorption[i] = cap + fis;
    nuc->total[i] = el + cap + fis;
    nuc->nu[i] = nuc->fissile ? spec->nu + 0.14e-6 * e : 0.0;
  }
}

static void add_material(const char *name, int n, const char *const *names,
                         const double *dens) {
  Material *m = &g_xs.materials[g_xs.n_materials++];
  snprintf(m->name, sizeof m->name, "%s", name);
  m->n_nuclides = n;
  for (int k = 0; k < n; k++) {
    m->nuclide[k] = find_nuclide(names[k]);
    m->density[k] = dens[k];
  }
}

void xs_build(int n_grid, unsigned long long seed) {
  memset(&g_xs, 0, sizeof g_xs);
  g_xs.e_min = 1.0e-5;
  g_xs.e_max = 2.0e7;
  g_xs.n_nuclides = (int)(sizeof specs / sizeof specs[0]);
  for (int i = 0; i < g_xs.n_nuclides; i++) {
    /* heavy nuclides carry more resonances: a finer grid */
    int n = specs[i].n_res > 10 ? n_grid : n_grid / 2;
    make_nuclide(&g_xs.nuclides[i], &specs[i], n, &seed);
  }

  static const char *const fuel[] = {"U234", "U235",  "U236",  "U238",
                                     "Pu239", "Pu240", "Pu241", "O16",
                                     "Xe135", "Sm149", "Nd143", "Cs133"};
  static const double fuel_dens[] = {6.1e-6, 1.6e-3, 9.0e-5, 2.09e-2,
                                     1.4e-4, 3.5e-5, 1.9e-5, 4.6e-2,
                                     9.0e-9, 1.1e-7, 2.8e-5, 3.4e-5};
  static const char *const water[] = {"H1", "O16", "B10"};
  static const double water_dens[] = {6.7e-2, 3.35e-2, 1.5e-5};
  static const char *const clad[] = {"Zr90", "Zr91", "Zr92", "Zr94", "Fe56"};
  static const double clad_dens[] = {2.2e-2, 4.8e-3, 7.4e-3, 7.5e-3, 1.5e-4};
  add_material("fuel", 12, fuel, fuel_dens);
  add_material("water", 3, water, water_dens);
  add_material("clad", 5, clad, clad_dens);
}

void xs_free(void) {
  for (int i = 0; i < g_xs.n_nuclides; i++)
    free(g_xs.nuclides[i].energy);
}

/* The index i with grid[i] <= e < grid[i+1]. */
int grid_search(const double *grid, int n, double e) {
  int lo = 0, hi = n - 1;
  if (e <= grid[0])
    return 0;
  if (e >= grid[hi])
    return hi - 1;
  while (hi - lo > 1) {
    int mid = (lo + hi) >> 1;
    if (grid[mid] > e)
      hi = mid;
    else
      lo = mid;
  }
  return lo;
}

void xs_micro(int nuclide, double e, MicroXs *out) {
  const Nuclide *nuc = &g_xs.nuclides[nuclide];
  int i = grid_search(nuc->energy, nuc->n_points, e);
  double f = (e - nuc->energy[i]) / (nuc->energy[i + 1] - nuc->energy[i]);
  out->total = nuc->total[i] + f * (nuc->total[i + 1] - nuc->total[i]);
  out->elastic = nuc->elastic[i] + f * (nuc->elastic[i + 1] - nuc->elastic[i]);
  out->absorption =
      nuc->absorption[i] + f * (nuc->absorption[i + 1] - nuc->absorption[i]);
  out->fission = nuc->fission[i] + f * (nuc->fission[i + 1] - nuc->fission[i]);
  out->nu = nuc->nu[i] + f * (nuc->nu[i + 1] - nuc->nu[i]);
}

void xs_macro(int material, double e, MacroXs *out) {
  const Material *mat = &g_xs.materials[material];
  MicroXs micro;
  out->total = out->elastic = out->absorption = 0.0;
  out->fission = out->nu_fission = 0.0;
  for (int k = 0; k < mat->n_nuclides; k++) {
    double rho = mat->density[k];
    xs_micro(mat->nuclide[k], e, &micro);
    out->total += rho * micro.total;
    out->elastic += rho * micro.elastic;
    out->absorption += rho * micro.absorption;
    out->fission += rho * micro.fission;
    out->nu_fission += rho * micro.nu * micro.fission;
  }
}
