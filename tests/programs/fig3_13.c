typedef struct { int * x; } CStruct;

void absorbEV(int * x, CStruct * s)
{
    s->x = x;
}

void doStuff(CStruct * s)
{
    s->x[0] = 1;
}

void top(int * x)
{
    CStruct s;
    absorbEV(x, &s);
    doStuff(&s);
}
