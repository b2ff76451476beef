/* SPDX-License-Identifier: BSD-3-Clause */
/* heap_by_rank.c — heap bytes per simulated rank under SimGrid's SMPI (LD_PRELOAD; bench only).
 *
 * What: interposes malloc, calloc, realloc, free and the aligned allocators; each block is
 * charged to the SimGrid actor that allocated it (sg_actor_self, looked up at run time: 0 for
 * the simulator itself) for as long as it lives, whoever frees it. Per actor: the live bytes
 * now, their peak, the bytes and blocks ever allocated. At exit writes one JSON object to the
 * file named by MM_HEAP_OUT: {"actors": [[pid, peak, live, allocated, blocks], ...],
 * "untracked_blocks": n, "live_blocks_max": n} (untracked: blocks that found the table full).
 * Sizes are malloc_usable_size, what the allocator really reserved.
 * Why: SMPI runs every rank in one process, whose peak RSS is the sum over ranks plus the
 * simulator; the memory of one rank (rank 0's gather, a non-root rank's arrays) is only
 * visible by charging each allocation to the rank that made it (bench/simulate_memory.py).
 * Not counted: stacks, the privatized copies of global variables, mmap'ed memory.
 * Cost: a hash table of live blocks (pointer -> actor; 2^23 slots, 128 MiB of address space,
 * touched as it fills), one lookup per call. Build: cc -O2 -shared -fPIC -o heap_by_rank.so
 * heap_by_rank.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* glibc's own entry points: no dlsym needed, so no allocation while resolving. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

enum { MAX_ACTORS = 1 << 16, SLOTS_LOG2 = 23 };
#define SLOTS ((size_t)1 << SLOTS_LOG2)

typedef struct {
    uintptr_t ptr; /* 0: empty */
    int32_t owner;
    int32_t pad;
} slot;

typedef struct {
    int64_t live, peak, allocated, blocks;
} account;

static slot *table;
static account actors[MAX_ACTORS];
static int64_t untracked, tracked_now, tracked_max;
static __thread int inside; /* our own bookkeeping must not recurse */
static volatile int lock;
static void *(*self_fn)(void);
static long (*pid_fn)(const void *);
static int resolved;

static void lock_take(void) {
    while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE)) {
    }
}
static void lock_give(void) { __atomic_store_n(&lock, 0, __ATOMIC_RELEASE); }

static size_t slot_of(uintptr_t p) { return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull >> (64 - SLOTS_LOG2)); }

/* The allocating actor's pid; 0 outside any actor (the simulator's own work). */
static int current_actor(void) {
    if (!resolved) {
        resolved = 1; /* dlsym may allocate: `inside` keeps that out of the books */
        self_fn = (void *(*)(void))dlsym(RTLD_DEFAULT, "sg_actor_self");
        pid_fn = (long (*)(const void *))dlsym(RTLD_DEFAULT, "sg_actor_get_pid");
        if (!self_fn || !pid_fn) resolved = 0; /* libsimgrid not loaded yet: retry later */
    }
    if (!self_fn) return 0;
    void *a = self_fn();
    long pid = a ? pid_fn(a) : 0;
    return pid > 0 && pid < MAX_ACTORS ? (int)pid : 0;
}

static void note_alloc(void *p) {
    if (!p || inside) return;
    inside = 1;
    int owner = current_actor();
    size_t bytes = malloc_usable_size(p);
    lock_take();
    if (!table) {
        void *m = mmap(NULL, SLOTS * sizeof(slot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        table = m == MAP_FAILED ? NULL : m;
    }
    if (table && tracked_now < (int64_t)(SLOTS / 10 * 7)) {
        size_t i = slot_of((uintptr_t)p);
        while (table[i].ptr) i = (i + 1) & (SLOTS - 1);
        table[i].ptr = (uintptr_t)p;
        table[i].owner = owner;
        if (++tracked_now > tracked_max) tracked_max = tracked_now;
        account *a = &actors[owner];
        a->live += (int64_t)bytes;
        a->allocated += (int64_t)bytes;
        a->blocks++;
        if (a->live > a->peak) a->peak = a->live;
    } else {
        untracked++;
    }
    lock_give();
    inside = 0;
}

/* Linear probing with backward-shift deletion (no tombstones). */
static void note_free(void *p) {
    if (!p || !table) return;
    size_t bytes = malloc_usable_size(p);
    lock_take();
    size_t i = slot_of((uintptr_t)p);
    while (table[i].ptr && table[i].ptr != (uintptr_t)p) i = (i + 1) & (SLOTS - 1);
    if (table[i].ptr) {
        actors[table[i].owner].live -= (int64_t)bytes;
        tracked_now--;
        size_t hole = i, j = i;
        for (;;) {
            j = (j + 1) & (SLOTS - 1);
            if (!table[j].ptr) break;
            size_t home = slot_of(table[j].ptr);
            /* move j into the hole unless its home lies cyclically in (hole, j] */
            int stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
            if (stays) continue;
            table[hole] = table[j];
            hole = j;
        }
        table[hole].ptr = 0;
    }
    lock_give();
}

void *malloc(size_t n) {
    void *p = __libc_malloc(n);
    note_alloc(p);
    return p;
}

void *calloc(size_t k, size_t n) {
    void *p = __libc_calloc(k, n);
    note_alloc(p);
    return p;
}

void *realloc(void *old, size_t n) {
    note_free(old);
    void *p = __libc_realloc(old, n);
    if (p || n == 0) note_alloc(p);
    else note_alloc(old); /* failed: the old block lives on */
    return p;
}

void free(void *p) {
    note_free(p);
    __libc_free(p);
}

void *memalign(size_t align, size_t n) {
    void *p = __libc_memalign(align, n);
    note_alloc(p);
    return p;
}

void *aligned_alloc(size_t align, size_t n) { return memalign(align, n); }

int posix_memalign(void **out, size_t align, size_t n) {
    void *p = memalign(align, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}

__attribute__((destructor)) static void report(void) {
    const char *path = getenv("MM_HEAP_OUT");
    int any_actor = 0; /* the launcher's shell sees this library too: only the simulator writes */
    for (int a = 1; a < MAX_ACTORS && !any_actor; a++) any_actor = actors[a].blocks > 0;
    if (!path || !any_actor) return;
    inside = 1;
    FILE *f = fopen(path, "w");
    if (!f) return;
    fprintf(f, "{\"actors\": [");
    int first = 1;
    for (int a = 0; a < MAX_ACTORS; a++) {
        if (!actors[a].blocks) continue;
        fprintf(f, "%s[%d, %lld, %lld, %lld, %lld]", first ? "" : ", ", a, (long long)actors[a].peak,
                (long long)actors[a].live, (long long)actors[a].allocated, (long long)actors[a].blocks);
        first = 0;
    }
    fprintf(f, "], \"untracked_blocks\": %lld, \"live_blocks_max\": %lld}\n", (long long)untracked,
            (long long)tracked_max);
    fclose(f);
}
