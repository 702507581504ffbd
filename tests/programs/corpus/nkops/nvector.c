/* nvector.c: operations every vector implementation gets, written only in
 * terms of the operations table. */
#include <math.h>
#include <stdlib.h>
#include "nvector.h"

N_Vector *N_VCloneVectorArray(int count, N_Vector w) {
  N_Vector *vs = malloc((size_t)count * sizeof(N_Vector));
  for (int i = 0; vs != NULL && i < count; i++)
    if ((vs[i] = N_VClone(w)) == NULL) {
      N_VDestroyVectorArray(vs, i);
      return NULL;
    }
  return vs;
}

void N_VDestroyVectorArray(N_Vector *vs, int count) {
  if (vs == NULL)
    return;
  for (int i = 0; i < count; i++)
    N_VDestroy(vs[i]);
  free(vs);
}

double N_VL2Norm(N_Vector x) { return sqrt(N_VDotProd(x, x)); }
