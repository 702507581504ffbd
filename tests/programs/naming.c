/* Names as a reader of the source spells them: main is a blame point
 * (make and fill have exit variables), a function-static local belongs to
 * its function, format strings are no variables, and the temporaries of a
 * loop macro (hypre style) stay out of the default views. */
#include <stdio.h>
#include <stdlib.h>

#define SCALE_ALL(p, n)                                                        \
  do {                                                                         \
    int xxx__i;                                                                \
    for (xxx__i = 0; xxx__i < (n); xxx__i++) (p)[xxx__i] *= 0.5;               \
  } while (0)

__attribute__((noinline)) double *make(int n) {
  double *p = malloc(n * sizeof *p);
  for (int r = 0; r < 600; r++)
    for (int i = 0; i < n; i++) p[i] = p[i] * 0.5 + r; /* make loop */
  return p;
}

__attribute__((noinline)) void fill(double *q, int n) {
  static double history[64];
  for (int r = 0; r < 600; r++) {
    for (int i = 0; i < n; i++) q[i] = q[i] * 0.5 + r; /* fill loop */
    history[r % 64] += q[r]; /* history */
  }
}

__attribute__((noinline)) void scale(double *q, int n) {
  int hypre__nx = n;
  SCALE_ALL(q, hypre__nx); /* scale loop */
}

int main(void) {
  int n = 1000000;
  double *a = make(n);
  double *b = calloc(n, sizeof *b);
  fill(b, n);
  for (int k = 0; k < 40; k++) scale(b, n);
  printf("%f %f\n", a[7], b[7]); /* print */
  return 0;
}
