#include <stdlib.h>
#define N 16
int f(void) {
int * x = (int *) malloc (sizeof(int) * N);
int z = x[N-1];
int * y = x;
z = y[N-2];
return z;
}
