/* blame allocation tracer: LD_PRELOAD library started by
 * `blame record --track-allocations`. Counts every malloc/calloc/realloc/
 * free/aligned allocation exactly (calls, bytes, live bytes, the process's
 * peak and what is live at exit) and logs allocation events with their time
 * (CLOCK_MONOTONIC, the clock of perf samples), a sequence number and the
 * allocation's call stack (an id of a stack logged once), so post-processing
 * can name the heap block a sampled data address falls in and the variable
 * that holds it.
 *
 * The log stays bounded: the first $BLAME_ALLOC_EXACT allocations (default
 * 200,000) are all logged; after them, a block of at least
 * $BLAME_ALLOC_SAMPLE bytes (default 256 KiB) is always logged and smaller
 * blocks are sampled by bytes (a Poisson process of mean $BLAME_ALLOC_SAMPLE
 * bytes: a block of s bytes is logged with probability 1 - exp(-s/T) and
 * stands for 1/p blocks). The frees of logged blocks are logged. The exact
 * totals are written at exit, and again after each later event (other
 * libraries' destructors run after this one's). Records are buffered (1 MiB) and written
 * under one lock; a block's size is kept in an open-addressing table so a
 * free knows how many bytes it releases.
 *
 * Layout: formats/src/alloc_log.rs. Output: $BLAME_ALLOC_DIR/alloc-PID.balloc.
 *
 * Build: cc -shared -fPIC -O2 -static-libgcc -o libblame_alloc.so blame_alloc.c -ldl -lm
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <unwind.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

enum {
    K_MALLOC = 1,
    K_CALLOC = 2,
    K_REALLOC = 3,
    K_FREE = 4,
    K_ALIGNED = 5,
    K_MAPS = 6,
    K_SITE = 7,
    K_TOTALS = 8,
};
/* Set in an allocation record's kind: the block was sampled (weight 1/p). */
#define F_SAMPLED 0x100u
#define MAX_FRAMES 32
#define VERSION 2

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_dlopen)(const char *, int);
/* A library was loaded since the maps were logged: log them again before
 * the next stack, which may be in it (MPI loads its components in
 * MPI_Init and unloads them in MPI_Finalize, before the dump at exit). */
static int maps_stale;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;
static int log_tried;
/* Set once the totals were first written at exit: later events (other
 * libraries' destructors) are still counted, each followed by the totals
 * again and a flush, so the last totals record is the process's end. */
static int after_exit;
static __thread int in_hook;

static int resolving;

/* Settings. */
static uint64_t sample_bytes = 256 << 10;
static uint64_t exact_allocs = 200000;

/* Exact counters. */
static uint64_t n_allocs, n_bytes, n_frees, live_bytes, live_blocks, peak_bytes,
    peak_blocks, peak_seq, seq, start_ns;
static int peak_dirty; /* peak moved since its time was taken */
static uint64_t peak_ns;
static double sample_left;
static uint64_t rng = 0x9e3779b97f4a7c15ull;

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
    real_dlopen = dlsym(RTLD_NEXT, "dlopen");
    resolving = 0;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- output buffer ---- */

static char out[1 << 20];
static size_t out_len;

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

static void flush_out(void) {
    if (log_fd >= 0 && out_len > 0)
        write_all(out, out_len);
    out_len = 0;
}

/* Room for `len` bytes in the buffer (flushing first when needed). */
static char *reserve(size_t len) {
    if (out_len + len > sizeof out)
        flush_out();
    char *p = out + out_len;
    out_len += len;
    return p;
}

static void put32(char **p, uint32_t v) { memcpy(*p, &v, 4); *p += 4; }
static void put64(char **p, uint64_t v) { memcpy(*p, &v, 8); *p += 8; }

/* ---- live blocks: address -> size, bit 63 set when the block is logged ---- */

#define LOGGED (1ull << 63)
#define PRESENT (1ull << 62) /* set in every entry: a zero-byte block's word is not 0 */
#define SIZE_BITS (PRESENT - 1)
struct slot {
    uint64_t addr, size;
};
static struct slot *table;
static size_t table_cap, table_used;

static size_t slot_of(uint64_t addr, size_t cap) {
    return (size_t)((addr >> 4) * 0x9e3779b97f4a7c15ull >> 20) & (cap - 1);
}

static void *map_zeroed(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void table_put(struct slot *t, size_t cap, uint64_t addr, uint64_t size) {
    size_t i = slot_of(addr, cap);
    while (t[i].addr != 0 && t[i].addr != addr)
        i = (i + 1) & (cap - 1);
    if (t[i].addr == 0)
        table_used++;
    t[i].addr = addr;
    t[i].size = size;
}

static int table_grow(void) {
    size_t cap = table_cap ? table_cap * 2 : (1 << 16);
    struct slot *t = map_zeroed(cap * sizeof *t);
    if (!t)
        return 0;
    size_t old_cap = table_cap;
    struct slot *old = table;
    table_used = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].addr)
            table_put(t, cap, old[i].addr, old[i].size);
    if (old)
        munmap(old, old_cap * sizeof *old);
    table = t;
    table_cap = cap;
    return 1;
}

static void table_insert(uint64_t addr, uint64_t size) {
    if (2 * (table_used + 1) > table_cap && !table_grow())
        return;
    table_put(table, table_cap, addr, size);
}

/* Removes `addr`; returns its entry's size word, or 0 when it is unknown. */
static uint64_t table_remove(uint64_t addr) {
    if (!table_cap)
        return 0;
    size_t i = slot_of(addr, table_cap);
    while (table[i].addr != addr) {
        if (table[i].addr == 0)
            return 0;
        i = (i + 1) & (table_cap - 1);
    }
    uint64_t size = table[i].size;
    /* Backward-shift deletion keeps every probe chain whole. */
    size_t hole = i;
    for (size_t j = (i + 1) & (table_cap - 1); table[j].addr; j = (j + 1) & (table_cap - 1)) {
        size_t home = slot_of(table[j].addr, table_cap);
        int moves = hole <= j ? (home <= hole || home > j) : (home <= hole && home > j);
        if (moves) {
            table[hole] = table[j];
            hole = j;
        }
    }
    table[hole].addr = 0;
    table[hole].size = 0;
    table_used--;
    return size;
}

/* ---- call stacks, each logged once ---- */

struct site_slot {
    uint64_t hash;
    uint32_t id;
};
static struct site_slot *sites;
static size_t sites_cap, sites_used;

static uint32_t site_id(void *const *frames, int depth) {
    uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t)depth;
    for (int i = 0; i < depth; i++) {
        h ^= (uint64_t)(uintptr_t)frames[i];
        h *= 0x100000001b3ull;
    }
    h |= 1;
    if (2 * (sites_used + 1) > sites_cap) {
        size_t cap = sites_cap ? sites_cap * 2 : 4096;
        struct site_slot *t = map_zeroed(cap * sizeof *t);
        if (!t)
            return UINT32_MAX;
        for (size_t i = 0; i < sites_cap; i++) {
            if (!sites[i].hash)
                continue;
            size_t j = (size_t)(sites[i].hash >> 7) & (cap - 1);
            while (t[j].hash)
                j = (j + 1) & (cap - 1);
            t[j] = sites[i];
        }
        if (sites)
            munmap(sites, sites_cap * sizeof *sites);
        sites = t;
        sites_cap = cap;
    }
    size_t j = (size_t)(h >> 7) & (sites_cap - 1);
    while (sites[j].hash && sites[j].hash != h)
        j = (j + 1) & (sites_cap - 1);
    if (sites[j].hash)
        return sites[j].id;
    sites[j].hash = h;
    sites[j].id = (uint32_t)sites_used++;
    char *p = reserve(16 + 8 * (size_t)depth);
    put32(&p, K_SITE);
    put32(&p, (uint32_t)depth);
    put64(&p, sites[j].id);
    for (int i = 0; i < depth; i++)
        put64(&p, (uint64_t)(uintptr_t)frames[i]);
    return sites[j].id;
}

/* ---- call stacks ----
 * The unwinder is libgcc's, linked into this library (-static-libgcc):
 * glibc's backtrace() would dlopen libgcc_s on first use, and that load's
 * heap blocks (about 4 KiB, live to the end) are the tracer's, not the
 * program's: a program that loads libgcc_s itself (MPI does, for thread
 * cancellation) must find it not loaded yet, as it would untraced. */

struct unwind_state {
    void **frames;
    int n, max;
};

static _Unwind_Reason_Code unwind_one(struct _Unwind_Context *ctx, void *arg) {
    struct unwind_state *st = arg;
    if (st->n >= st->max)
        return _URC_END_OF_STACK;
    uintptr_t ip = _Unwind_GetIP(ctx);
    if (!ip)
        return _URC_END_OF_STACK;
    st->frames[st->n++] = (void *)ip;
    return _URC_NO_REASON;
}

/* Return addresses of the calling stack, innermost first (frame 0 is the
 * caller of this function), as backtrace() gives them. */
static __attribute__((noinline)) int stack_of(void **frames, int max) {
    struct unwind_state st = {frames, 0, max};
    _Unwind_Backtrace(unwind_one, &st);
    /* Frame 0 is this function itself. */
    if (st.n > 0) {
        memmove(frames, frames + 1, sizeof *frames * (size_t)(st.n - 1));
        st.n--;
    }
    return st.n;
}

/* ---- the log ---- */

static void dump_maps(void) {
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    static char text[1 << 16];
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
                char *p = reserve(16 + len);
                put32(&p, K_MAPS);
                put32(&p, 0);
                put64(&p, len);
                memcpy(p, text + start, len);
            }
            start = i + 1;
        }
        memmove(text, text + start, have - start);
        have -= start;
    }
    close(fd);
}

static uint64_t env_u64(const char *name, uint64_t fallback) {
    const char *v = getenv(name);
    if (!v || !*v)
        return fallback;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    return *end ? fallback : (uint64_t)n;
}

static double next_interval(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    double u = ((double)(rng >> 11) + 1.0) / 9007199254740993.0; /* (0, 1] */
    return -log(u) * (double)sample_bytes;
}

static void open_log(void) {
    log_tried = 1;
    const char *dir = getenv("BLAME_ALLOC_DIR");
    if (!dir)
        return;
    sample_bytes = env_u64("BLAME_ALLOC_SAMPLE", sample_bytes);
    exact_allocs = env_u64("BLAME_ALLOC_EXACT", exact_allocs);
    char path[4096];
    pid_t pid = getpid();
    snprintf(path, sizeof path, "%s/alloc-%d.balloc", dir, (int)pid);
    /* Never through a symlink planted at the name (the log is then lost). */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return;
    log_fd = fd;
    start_ns = now_ns();
    rng ^= (uint64_t)pid * 0x2545f4914f6cdd1dull ^ start_ns;
    if (sample_bytes > 0)
        sample_left = next_interval();
    char *p = reserve(40);
    memcpy(p, "BLAMEALC", 8);
    p += 8;
    put32(&p, VERSION);
    put32(&p, (uint32_t)pid);
    put64(&p, sample_bytes);
    put64(&p, exact_allocs);
    put64(&p, start_ns);
    dump_maps();
}

/* Whether tracing is on; opens the log on the first allocation (libraries'
 * constructors allocate before this library's constructor runs). */
static int tracing(void) {
    if (!log_tried)
        open_log();
    return log_fd >= 0;
}

static void write_totals(void) {
    if (peak_dirty)
        peak_ns = now_ns();
    char *p = reserve(8 + 8 * 14);
    put32(&p, K_TOTALS);
    put32(&p, 14);
    put64(&p, n_allocs);
    put64(&p, n_bytes);
    put64(&p, n_frees);
    put64(&p, live_bytes);
    put64(&p, live_blocks);
    put64(&p, peak_bytes);
    put64(&p, peak_blocks);
    put64(&p, peak_seq);
    put64(&p, peak_ns);
    put64(&p, seq);
    put64(&p, now_ns());
    put64(&p, table_used);
    put64(&p, sites_used);
    put64(&p, 0);
}

static void prepare_fork(void) { pthread_mutex_lock(&lock); flush_out(); }
static void parent_after_fork(void) { pthread_mutex_unlock(&lock); }

static void child_after_fork(void) {
    pthread_mutex_init(&lock, NULL);
    out_len = 0;
    if (log_fd >= 0) {
        close(log_fd);
        log_fd = -1;
        /* The child counts its own allocations; the parent's blocks it
         * inherits are unknown to it (their frees are not counted). */
        n_allocs = n_bytes = n_frees = live_bytes = live_blocks = 0;
        peak_bytes = peak_blocks = peak_seq = seq = 0;
        peak_dirty = 0;
        if (table)
            memset(table, 0, table_cap * sizeof *table);
        table_used = 0;
        if (sites)
            memset(sites, 0, sites_cap * sizeof *sites);
        sites_used = 0;
        in_hook++;
        open_log();
        in_hook--;
    }
}

__attribute__((constructor)) static void tracer_init(void) {
    in_hook++;
    resolve_real();
    pthread_mutex_lock(&lock);
    if (!log_tried)
        open_log();
    pthread_mutex_unlock(&lock);
    pthread_atfork(prepare_fork, parent_after_fork, child_after_fork);
    in_hook--;
}

__attribute__((destructor)) static void tracer_fini(void) {
    in_hook++;
    pthread_mutex_lock(&lock);
    if (log_fd >= 0 && !after_exit) {
        dump_maps(); /* libraries loaded since start */
        write_totals();
        flush_out();
        after_exit = 1;
    }
    pthread_mutex_unlock(&lock);
    in_hook--;
}

/* Counts a block's release; logs it when its allocation was logged. */
static void note_free(void *ptr) {
    uint64_t word = table_remove((uint64_t)(uintptr_t)ptr);
    if (!word)
        return; /* not ours: allocated before tracing, or by another allocator */
    uint64_t size = word & SIZE_BITS;
    if (peak_dirty) {
        /* The peak's time: taken when the live bytes first fall from it. */
        peak_ns = now_ns();
        peak_dirty = 0;
    }
    n_frees++;
    live_bytes -= size;
    live_blocks--;
    seq++;
    if (word & LOGGED) {
        char *p = reserve(32);
        put32(&p, K_FREE);
        put32(&p, UINT32_MAX);
        put64(&p, now_ns());
        put64(&p, seq);
        put64(&p, (uint64_t)(uintptr_t)ptr);
    }
}

/* Counts a new block; logs it with its stack when it is logged or sampled.
 * Always inlined into record_alloc, so the stack's frames 0 and 1 are
 * record_alloc and the interposed function. */
static inline __attribute__((always_inline)) void note_alloc(uint32_t kind, void *ptr, size_t size) {
    n_allocs++;
    n_bytes += size;
    live_bytes += size;
    live_blocks++;
    seq++;
    if (live_bytes > peak_bytes) {
        peak_bytes = live_bytes;
        peak_blocks = live_blocks;
        peak_seq = seq;
        peak_dirty = 1;
    }
    int logged = n_allocs <= exact_allocs || sample_bytes == 0 || size >= sample_bytes;
    if (!logged) {
        sample_left -= (double)size;
        if (sample_left <= 0) {
            logged = 1;
            kind |= F_SAMPLED;
            do
                sample_left += next_interval();
            while (sample_left <= 0);
        }
    }
    table_insert((uint64_t)(uintptr_t)ptr, (logged ? LOGGED : 0) | PRESENT | size);
    if (!logged)
        return;
    if (maps_stale) {
        maps_stale = 0;
        dump_maps();
    }
    void *frames[MAX_FRAMES + 2];
    int n = stack_of(frames, MAX_FRAMES + 2);
    int skip = n > 2 ? 2 : n;
    uint32_t site = site_id(frames + skip, n - skip);
    char *p = reserve(48);
    put32(&p, kind);
    put32(&p, site);
    put64(&p, now_ns());
    put64(&p, seq);
    put64(&p, (uint64_t)(uintptr_t)ptr);
    put64(&p, (uint64_t)size);
    put64(&p, 0);
}

static __attribute__((noinline)) void record_alloc(uint32_t kind, void *ptr, size_t size,
                                                   void *old) {
    if (in_hook)
        return;
    in_hook++;
    pthread_mutex_lock(&lock);
    if (tracing()) {
        if (old)
            note_free(old);
        if (ptr)
            note_alloc(kind, ptr, size);
        if (after_exit) {
            write_totals();
            flush_out();
        }
    }
    pthread_mutex_unlock(&lock);
    in_hook--;
}

static __attribute__((noinline)) void record_free(void *ptr) {
    if (in_hook)
        return;
    in_hook++;
    pthread_mutex_lock(&lock);
    if (tracing()) {
        note_free(ptr);
        if (after_exit) {
            write_totals();
            flush_out();
        }
    }
    pthread_mutex_unlock(&lock);
    in_hook--;
}

void *malloc(size_t size) {
    resolve_real();
    if (!real_malloc)
        return bootstrap_alloc(size);
    void *p = real_malloc(size);
    if (p)
        record_alloc(K_MALLOC, p, size, NULL);
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
        record_alloc(K_CALLOC, p, n * size, NULL);
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
    /* realloc(p, 0) frees p; a failed realloc leaves it alone. */
    if (p || size == 0)
        record_alloc(K_REALLOC, p, size, old);
    return p;
}

void free(void *p) {
    if (!p || is_bootstrap(p))
        return;
    resolve_real();
    record_free(p);
    real_free(p);
}

int posix_memalign(void **out_ptr, size_t align, size_t size) {
    resolve_real();
    int rc = real_posix_memalign(out_ptr, align, size);
    if (rc == 0)
        record_alloc(K_ALIGNED, *out_ptr, size, NULL);
    return rc;
}

void *aligned_alloc(size_t align, size_t size) {
    resolve_real();
    void *p = real_aligned_alloc(align, size);
    if (p)
        record_alloc(K_ALIGNED, p, size, NULL);
    return p;
}

void *memalign(size_t align, size_t size) {
    resolve_real();
    void *p = real_memalign(align, size);
    if (p)
        record_alloc(K_ALIGNED, p, size, NULL);
    return p;
}

void *dlopen(const char *file, int mode) {
    resolve_real();
    if (!real_dlopen)
        return NULL;
    void *h = real_dlopen(file, mode);
    if (h)
        __atomic_store_n(&maps_stale, 1, __ATOMIC_RELAXED);
    return h;
}
