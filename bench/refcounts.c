// Loaded with LD_PRELOAD by bench/refcounts.sh (a diagnostic, not part of the server):
// counts the Swift reference-count operations the program makes on each object, per
// thread, between SIGUSR1 (start) and SIGUSR2 (stop and write the counts). An object
// counted on two or more threads is one whose reference count moves between cores: each
// such operation is a cache line taken from the other core.
//
// Output (REFCOUNTS_OUT, default /tmp/refcounts.out), one line per object counted on
// several threads: "<address> <operations> <type>". Only calls from the program into
// libswiftCore are seen (the runtime's calls to itself are not).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#define SLOTS (1 << 16)
#define PROBES 64
#define MAX_THREADS 256

typedef struct { uintptr_t address; unsigned long count; } entry;
typedef struct { entry entries[SLOTS]; } table;

static table *tables[MAX_THREADS];
static int table_count;
static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static __thread table *own;
static __thread int inside;
static volatile sig_atomic_t counting, dump_requested;

static void *(*real_retain)(void *);
static void (*real_release)(void *);
static void *(*real_retain_n)(void *, uint32_t);
static void (*real_release_n)(void *, uint32_t);
static void *(*real_bridge_retain)(void *);
static void (*real_bridge_release)(void *);

static void resolve(void) {
    real_retain = dlsym(RTLD_NEXT, "swift_retain");
    real_release = dlsym(RTLD_NEXT, "swift_release");
    real_retain_n = dlsym(RTLD_NEXT, "swift_retain_n");
    real_release_n = dlsym(RTLD_NEXT, "swift_release_n");
    real_bridge_retain = dlsym(RTLD_NEXT, "swift_bridgeObjectRetain");
    real_bridge_release = dlsym(RTLD_NEXT, "swift_bridgeObjectRelease");
}

static entry *slot(table *t, uintptr_t address, int insert) {
    uintptr_t hash = (address >> 3) * 0x9E3779B97F4A7C15ULL;
    for (unsigned i = 0; i < PROBES; i++) {
        entry *e = &t->entries[(hash + i) & (SLOTS - 1)];
        if (e->address == address) return e;
        if (e->address == 0) {
            if (!insert) return 0;
            e->address = address;
            return e;
        }
    }
    return 0;
}

static void note(void *object, unsigned long n) {
    // Bridge objects carry tag bits in the top byte and the low bits; pointers to
    // heap objects are below 2^47 here. Anything else (small strings, nil) is not an object.
    uintptr_t address = (uintptr_t)object & 0x00FFFFFFFFFFFFF8ULL;
    if (!counting || inside || address < 0x10000 || (address >> 47)) return;
    if (!own) {
        inside = 1;
        table *t = calloc(1, sizeof *t);
        pthread_mutex_lock(&registry);
        if (t && table_count < MAX_THREADS) tables[table_count++] = t; else { free(t); t = 0; }
        pthread_mutex_unlock(&registry);
        inside = 0;
        if (!t) return;
        own = t;
    }
    entry *e = slot(own, address, 1);
    if (e) e->count += n;
}

#define RESOLVED if (!real_bridge_release) resolve()
void *swift_retain(void *o) { RESOLVED; note(o, 1); return real_retain(o); }
void swift_release(void *o) { RESOLVED; note(o, 1); real_release(o); }
void *swift_retain_n(void *o, uint32_t n) { RESOLVED; note(o, n); return real_retain_n(o, n); }
void swift_release_n(void *o, uint32_t n) { RESOLVED; note(o, n); real_release_n(o, n); }
void *swift_bridgeObjectRetain(void *o) { RESOLVED; note(o, 1); return real_bridge_retain(o); }
void swift_bridgeObjectRelease(void *o) { RESOLVED; note(o, 1); real_bridge_release(o); }

/// Reads a word without faulting if the object is gone.
static int read_word(const void *from, void **to) {
    struct iovec local = { to, sizeof *to }, remote = { (void *)from, sizeof *to };
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == sizeof *to;
}

/// The type of the object at `address`, if it is still there. Objects are named at dump
/// time, so a long-lived (shared) object is named right; the memory of a freed one may have
/// been reused, and its name may then be wrong or "?".
static void type_name(uintptr_t address, char *out, size_t size) {
    typedef struct { const char *data; size_t length; } name_pair;
    static name_pair (*swift_type_name)(void *, int);
    if (!swift_type_name) swift_type_name = dlsym(RTLD_DEFAULT, "swift_getTypeName");
    void *metadata = 0, *kind = 0;
    Dl_info info;
    snprintf(out, size, "?");
    if (!read_word((void *)address, &metadata)) return;
    if (dladdr(metadata, &info) && info.dli_sname) { snprintf(out, size, "%s", info.dli_sname); return; }
    // Class metadata made at run time (generic classes such as array storage): its first
    // word is small. Anything else is not a Swift class (a closure context, say).
    if (swift_type_name && read_word(metadata, &kind) && (uintptr_t)kind < 0x1000) {
        name_pair name = swift_type_name(metadata, 1);
        snprintf(out, size, "%.*s", (int)name.length, name.data);
    } else {
        snprintf(out, size, "(not a class: closure context or box)");
    }
}

static void write_counts(void) {
    const char *path = getenv("REFCOUNTS_OUT") ? getenv("REFCOUNTS_OUT") : "/tmp/refcounts.out";
    char partial[4096];
    snprintf(partial, sizeof partial, "%s.partial", path);
    FILE *f = fopen(partial, "w");
    if (!f) return;
    char name[512];
    for (int t = 0; t < table_count; t++)
        for (int i = 0; i < SLOTS; i++) {
            entry *e = &tables[t]->entries[i];
            if (!e->address || !e->count) continue;
            unsigned long total = e->count;
            int threads = 1;
            for (int u = t + 1; u < table_count; u++) {
                entry *other = slot(tables[u], e->address, 0);
                if (other && other->count) { total += other->count; other->count = 0; threads++; }
            }
            if (threads < 2) continue;
            type_name(e->address, name, sizeof name);
            fprintf(f, "%lx %lu %s\n", e->address, total, name);
        }
    fclose(f);
    rename(partial, path);  // complete, or not there
}

static void on_signal(int signal) {
    if (signal == SIGUSR1) counting = 1;
    else { counting = 0; dump_requested = 1; }
}

static void *dumper(void *unused) {
    (void)unused;
    while (!dump_requested) usleep(100 * 1000);
    usleep(200 * 1000);  // let calls already counting finish
    write_counts();
    return 0;
}

__attribute__((constructor)) static void start(void) {
    RESOLVED;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    sigaction(SIGUSR1, &action, 0);
    sigaction(SIGUSR2, &action, 0);
    pthread_t thread;
    if (pthread_create(&thread, 0, dumper, 0) == 0) pthread_detach(thread);
}
