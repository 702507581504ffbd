/* Two worker threads each spend their time in their own function, for the
 * sampler's thread test: samples must come from both threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long reps = 60000;

__attribute__((noinline)) static double work_a(void) {
  double s = 0;
  for (long r = 0; r < reps; r++)
    for (int i = 1; i < 2000; i++)
      s += 1.0 / (i + r);
  return s;
}

__attribute__((noinline)) static double work_b(void) {
  double s = 1;
  for (long r = 0; r < reps; r++)
    for (int i = 1; i < 2000; i++)
      s = s * 0.999999 + i * 1e-9;
  return s;
}

static void *thread_a(void *out) { *(double *)out = work_a(); return NULL; }
static void *thread_b(void *out) { *(double *)out = work_b(); return NULL; }

int main(int argc, char **argv) {
  if (argc > 1)
    reps = atol(argv[1]);
  pthread_t a, b;
  double ra = 0, rb = 0;
  pthread_create(&a, NULL, thread_a, &ra);
  pthread_create(&b, NULL, thread_b, &rb);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("%g %g\n", ra, rb);
  return 0;
}
