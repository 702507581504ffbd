/* cputime OUT CMD ARGS...: runs CMD and appends its CPU time ("user sys",
 * seconds, of CMD and its descendants) to the file OUT as one line. Used by
 * bench/overhead.py so that the figures are the target's CPU time alone,
 * not the recorder's: under `mpirun -np N cputime OUT prog`, one line per rank. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: cputime OUT CMD ARGS...\n");
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("wait4");
        return 1;
    }
    char line[128];
    int n = snprintf(line, sizeof line, "%ld.%06ld %ld.%06ld\n", (long)ru.ru_utime.tv_sec,
                     (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0 || write(fd, line, (size_t)n) != n) {
        perror(argv[1]);
        return 1;
    }
    close(fd);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
