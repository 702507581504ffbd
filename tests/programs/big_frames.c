/* A solver whose frame holds 32 KiB of local arrays (as solvers with fixed
 * work buffers do): every sample in it or below it needs more than the
 * default 8 KiB of copied stack to reach main's return address. */
#include <stdio.h>

__attribute__((noinline)) double leaf(volatile double *w, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] * 1e-9;
  return s;
}

__attribute__((noinline)) double solve(int iters) {
  volatile double work[4096]; /* 32 KiB */
  for (int i = 0; i < 4096; i++) work[i] = i;
  double s = 0;
  for (int it = 0; it < iters; it++) s += leaf(work, 4096);
  return s;
}

int main(void) {
  printf("%f\n", solve(60000));
  return 0;
}
