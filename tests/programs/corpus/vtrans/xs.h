/* xs.h: continuous-energy cross-section data. The table g_xs is defined in
 * xs.c and shared by every unit through the extern below: it is built once
 * by xs_build() and only read afterwards. */
#ifndef VTRANS_XS_H
#define VTRANS_XS_H

#define MAX_NUCLIDES 24
#define MAX_MAT_NUCLIDES 16
#define MAX_MATERIALS 4

enum { MAT_FUEL = 0, MAT_WATER = 1, MAT_CLAD = 2 };

/* Pointwise data of one nuclide on its own ascending energy grid (eV). */
typedef struct {
  char name[12];
  int n_points;
  int fissile;
  double awr;         /* atomic weight ratio to the neutron */
  double *energy;     /* [n_points] */
  double *total;      /* microscopic cross sections (barns) on the grid */
  double *elastic;
  double *absorption; /* capture + fission */
  double *fission;
  double *nu;         /* neutrons per fission */
} Nuclide;

typedef struct {
  char name[12];
  int n_nuclides;
  int nuclide[MAX_MAT_NUCLIDES];    /* indices into g_xs.nuclides */
  double density[MAX_MAT_NUCLIDES]; /* atoms per barn-cm */
} Material;

typedef struct {
  int n_nuclides;
  int n_materials;
  double e_min, e_max;
  Nuclide nuclides[MAX_NUCLIDES];
  Material materials[MAX_MATERIALS];
} XsTable;

/* Macroscopic cross sections of a material at one energy (1/cm). */
typedef struct {
  double total, elastic, absorption, fission, nu_fission;
} MacroXs;

/* Microscopic cross sections of one nuclide at one energy (barns). */
typedef struct {
  double total, elastic, absorption, fission, nu;
} MicroXs;

extern XsTable g_xs;

void xs_build(int n_grid, unsigned long long seed);
void xs_free(void);
int grid_search(const double *grid, int n, double e);
void xs_micro(int nuclide, double e, MicroXs *out);
void xs_macro(int material, double e, MacroXs *out);

#endif
