/* The allocation wrappers: checked calloc and free, and a timer. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void *xcalloc(size_t count, size_t size, const char *file, int line) {
  void *p = calloc(count ? count : 1, size);
  if (!p) {
    fprintf(stderr, "%s:%d: out of memory (%zu x %zu bytes)\n", file, line, count, size);
    exit(1);
  }
  return p;
}

void xfree(void *p) { free(p); }

double wall_time(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
