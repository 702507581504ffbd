typedef struct {
int * sX; int * sY;
} StructEx; enum { N = 10 };
#include <stdlib.h>
void bar(int *x, int *y)
{
int i, loopC = 0;
for (i = 0; i < N; i++)
    loopC++;    // SAMPLE POINT

if (loopC %2)
    { x[0] = loopC;} //SAMPLE POINT
else
    { y[0] = loopC;} //SAMPLE POINT
}

void foo()
{
StructEx se;
se.sX =(int*)malloc(N*sizeof(int));
se.sY =(int*)malloc(N*sizeof(int));
bar(se.sX,se.sY);
}

int main()
{
foo();
}
