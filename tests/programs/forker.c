/* A target that keeps forking: each child computes for a few milliseconds
 * and exits while the parent starts the next, so whenever the recorder is
 * killed some processes have just started. The loop ends when the process
 * that launched it (the recorder) is gone, or after argv[1] seconds. */
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

__attribute__((noinline)) double work(long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s = s * 0.999999 + (double)(i & 1023);
  return s;
}

int main(int argc, char **argv) {
  pid_t launcher = getppid();
  int seconds = argc > 1 ? atoi(argv[1]) : 30;
  time_t end = time(NULL) + seconds;
  int running = 0;
  volatile double sink = 0;
  while (getppid() == launcher && time(NULL) < end) {
    while (running >= 3 && wait(NULL) > 0)
      running--;
    pid_t c = fork();
    if (c == 0) {
      sink = work(4000000 + (getpid() % 5) * 1000000);
      _exit(0);
    }
    if (c > 0)
      running++;
    sink += work(500000);
  }
  while (wait(NULL) > 0)
    ;
  return 0;
}
