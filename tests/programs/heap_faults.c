/* Two heap arrays touched page by page: `field` is eight times the size of
 * `halo`, so it takes about eight times the page faults. For the direct
 * data-centric test with `blame record -e page-faults -d --track-allocations`. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double touch(double *a, long n) {
  double s = 0;
  for (long i = 0; i < n; i += 512)
    a[i] = i, s += a[i];
  return s;
}

int main(void) {
  long n_field = 8L << 20, n_halo = 1L << 20; /* doubles: 64 MiB and 8 MiB */
  double *field = malloc(n_field * sizeof *field);
  double *halo = malloc(n_halo * sizeof *halo);
  double s = touch(field, n_field) + touch(halo, n_halo);
  printf("%g\n", s);
  free(halo);
  free(field);
  return 0;
}
