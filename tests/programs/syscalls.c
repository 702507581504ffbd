/* Spends its time in the kernel: read(2) of /dev/zero in a loop. For the
 * --kernel test: stacks have kernel frames above main -> read. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  static char buf[65536];
  long n = argc > 1 ? atol(argv[1]) : 200000;
  int fd = open("/dev/zero", O_RDONLY);
  for (long i = 0; i < n; i++)
    if (read(fd, buf, sizeof buf) <= 0)
      return 1;
  return 0;
}
