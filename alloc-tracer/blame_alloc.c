/* blame allocation tracer: LD_PRELOAD library started by
 * `blame record --track-allocations`. Logs every malloc/calloc/realloc/
 * free/aligned allocation with its time (CLOCK_MONOTONIC, the clock of perf
 * samples) and the return addresses of the allocation's call stack, so
 * post-processing can name the heap block a sampled data address falls in.
 * Layout: formats/src/alloc_log.rs. Output: $BLAME_ALLOC_DIR/alloc-PID.balloc.
 *
 * Build: cc -shared -fPIC -O2 -o libblame_alloc.so blame_alloc.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { K_MALLOC = 1, K_CALLOC = 2, K_REALLOC = 3, K_FREE = 4, K_ALIGNED = 5, K_MAPS = 6 };
#define MAX_FRAMES 16

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

static int log_fd = -1;
static pid_t log_pid;
static __thread int in_hook;
static int resolving;

/* dlsym may allocate before the real functions are known. */
static char bootstrap[8192];
static size_t bootstrap_used;

static void *bootstrap_alloc(size_t n) {
    size_t at = (bootstrap_used + 15) & ~(size_t)15;
    if (at + n > sizeof bootstrap)
        return NULL;
    bootstrap_used = at + n;
    return bootstrap + at;
}

static int is_bootstrap(void *p) {
    return (char *)p >= bootstrap && (char *)p < bootstrap + sizeof bootstrap;
}

static void resolve_real(void) {
    if (real_malloc || resolving)
        return;
    resolving = 1;
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_free = dlsym(RTLD_NEXT, "free");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = dlsym(RTLD_NEXT, "memalign");
    resolving = 0;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void write_all(const void *buf, size_t len) {
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(log_fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        p += n;
        len -= (size_t)n;
    }
}

static void put32(char **p, uint32_t v) { memcpy(*p, &v, 4); *p += 4; }
static void put64(char **p, uint64_t v) { memcpy(*p, &v, 8); *p += 8; }

static void dump_maps(void) {
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    static char text[1 << 16];
    char line[4096 + 40];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(fd, text + have, sizeof text - have);
        if (n <= 0)
            break;
        have += (size_t)n;
        size_t start = 0;
        for (size_t i = 0; i < have; i++) {
            if (text[i] != '\n')
                continue;
            size_t len = i - start;
            if (len < 4096) {
                char *p = line;
                put32(&p, K_MAPS);
                put32(&p, 0);
                put64(&p, 0);
                put64(&p, 0);
                put64(&p, len);
                put64(&p, 0);
                memcpy(p, text + start, len);
                write_all(line, 40 + len);
            }
            start = i + 1;
        }
        memmove(text, text + start, have - start);
        have -= start;
    }
    close(fd);
}

static void open_log(void) {
    const char *dir = getenv("BLAME_ALLOC_DIR");
    if (!dir)
        return;
    char path[4096];
    log_pid = getpid();
    snprintf(path, sizeof path, "%s/alloc-%d.balloc", dir, (int)log_pid);
    /* Never through a symlink planted at the name (the log is then lost). */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return;
    log_fd = fd;
    char head[16], *p = head;
    memcpy(p, "BLAMEALC", 8);
    p += 8;
    put32(&p, 1);
    put32(&p, (uint32_t)log_pid);
    write_all(head, sizeof head);
    dump_maps();
}

static void after_fork_in_child(void) {
    if (log_fd >= 0) {
        close(log_fd);
        log_fd = -1;
        in_hook++;
        open_log();
        in_hook--;
    }
}

__attribute__((constructor)) static void tracer_init(void) {
    in_hook++;
    resolve_real();
    open_log();
    pthread_atfork(NULL, NULL, after_fork_in_child);
    in_hook--;
}

__attribute__((destructor)) static void tracer_fini(void) {
    if (log_fd < 0)
        return;
    in_hook++;
    dump_maps(); /* libraries loaded since start */
    in_hook--;
}

static void record(uint32_t kind, void *addr, size_t size, void *old) {
    if (log_fd < 0 || in_hook)
        return;
    in_hook++;
    void *frames[MAX_FRAMES + 2];
    int n = backtrace(frames, MAX_FRAMES + 2);
    /* Skip this function and the interposed allocation function. */
    int skip = n > 2 ? 2 : n;
    int depth = n - skip;
    char buf[40 + 8 * (MAX_FRAMES + 2)], *p = buf;
    put32(&p, kind);
    put32(&p, (uint32_t)depth);
    put64(&p, now_ns());
    put64(&p, (uint64_t)(uintptr_t)addr);
    put64(&p, (uint64_t)size);
    put64(&p, (uint64_t)(uintptr_t)old);
    for (int i = skip; i < n; i++)
        put64(&p, (uint64_t)(uintptr_t)frames[i]);
    write_all(buf, (size_t)(p - buf));
    in_hook--;
}

void *malloc(size_t size) {
    resolve_real();
    if (!real_malloc)
        return bootstrap_alloc(size);
    void *p = real_malloc(size);
    if (p)
        record(K_MALLOC, p, size, NULL);
    return p;
}

void *calloc(size_t n, size_t size) {
    resolve_real();
    if (!real_calloc) {
        void *p = bootstrap_alloc(n * size);
        if (p)
            memset(p, 0, n * size);
        return p;
    }
    void *p = real_calloc(n, size);
    if (p)
        record(K_CALLOC, p, n * size, NULL);
    return p;
}

void *realloc(void *old, size_t size) {
    resolve_real();
    if (is_bootstrap(old)) {
        void *p = malloc(size);
        if (p && old)
            memcpy(p, old, size);
        return p;
    }
    void *p = real_realloc(old, size);
    if (p)
        record(K_REALLOC, p, size, old);
    return p;
}

void free(void *p) {
    if (!p || is_bootstrap(p))
        return;
    resolve_real();
    record(K_FREE, p, 0, NULL);
    real_free(p);
}

int posix_memalign(void **out, size_t align, size_t size) {
    resolve_real();
    int rc = real_posix_memalign(out, align, size);
    if (rc == 0)
        record(K_ALIGNED, *out, size, NULL);
    return rc;
}

void *aligned_alloc(size_t align, size_t size) {
    resolve_real();
    void *p = real_aligned_alloc(align, size);
    if (p)
        record(K_ALIGNED, p, size, NULL);
    return p;
}

void *memalign(size_t align, size_t size) {
    resolve_real();
    void *p = real_memalign(align, size);
    if (p)
        record(K_ALIGNED, p, size, NULL);
    return p;
}
