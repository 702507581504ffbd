/* The definitions of the common blocks (as a Fortran BLOCK DATA unit). */
#include "common.h"

double field_u[NY][NX];
double field_f[NY][NX];
struct cell cells[NCELL];
int nsweeps;
