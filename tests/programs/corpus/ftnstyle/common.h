/* The "common blocks": arrays every routine reaches by name. */
#define NX 192
#define NY 192
#define NCELL (NX * NY)

struct state { double rho, e; };
struct cell {
  struct state st;  /* nested struct */
  double flux[4];
  int mat;
};

extern double field_u[NY][NX]; /* defined in common.c */
extern double field_f[NY][NX];
extern struct cell cells[NCELL];
extern int nsweeps;

void relax_sweep(void);
void update_cells(double dt);
double energy(void);
