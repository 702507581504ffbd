/* A program with one known hot function, for the sampler tests:
 * main -> hot_loop takes nearly all the time; cold_setup very little. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double cold_setup(double *a, int n) {
  for (int i = 0; i < n; i++)
    a[i] = i * 0.5;
  return a[n - 1];
}

__attribute__((noinline)) double hot_loop(double *a, int n, long reps) {
  double sum = 0;
  for (long r = 0; r < reps; r++)
    for (int i = 0; i < n; i++)
      sum += a[i] * a[(i * 7) % n] + r;
  return sum;
}

int main(int argc, char **argv) {
  long reps = argc > 1 ? atol(argv[1]) : 50000;
  int n = 4096;
  double *a = malloc(n * sizeof *a);
  double s = cold_setup(a, n);
  s += hot_loop(a, n, reps);
  printf("%g\n", s);
  free(a);
  return 0;
}
