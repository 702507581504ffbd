#define N 100

void doStuffOnSide(int * x, int * y)
{
    for (int i = 0; i < N; i++)
        x[i] = y[i];           // SAMPLE POINT 1 (No side effect)
}

void baz(int * x, int * y)
{
    doStuffOnSide(x,y);
    x[0] = 0;                 // SAMPLE POINT 2 (Side effect)
}

int main()
{
    int x[N], y[N];
    baz(x,y);
    return x[0];
}
