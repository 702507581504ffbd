/* One of many small processes for the daemon's memory benchmark: sleeps
 * until START (Unix seconds, so that all copies are started before any
 * competes for the CPU), then burns about 20 ms of CPU and sleeps 100 ms,
 * for SECONDS seconds, so that every process is sampled (and gets a
 * stream) while hundreds run at once.
 *   mem_worker SECONDS START */
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double __attribute__((noinline)) burn(double *acc, double seconds) {
    double end = now() + seconds;
    while (now() < end)
        for (int i = 0; i < 10000; i++)
            *acc = *acc * 0.999 + i;
    return *acc;
}

static double unix_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    double start = argc > 2 ? atof(argv[2]) : 0;
    while (unix_now() < start)
        usleep(50000);
    double acc = 1, end = now() + seconds;
    while (now() < end) {
        burn(&acc, 0.02);
        usleep(100000);
    }
    return acc == 42;
}
