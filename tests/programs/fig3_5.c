typedef struct {
int *i;
} StructEx;
#include <stdlib.h>
void oneFunc()
{
StructEx s;
int * x, * y, z;
x = y;
z = 1;
if (z) {
x[1] = z;
}
z = 2;
if (z) {
s.i = (int*) malloc(4);
s.i[0] = z;
}
}
