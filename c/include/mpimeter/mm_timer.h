/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_timer.h — reading local time. One file per variant in c/src/timer/, picked by name at
 * run time (--timer). Time is int64 nanoseconds on the variant's own clock. */
#ifndef MM_TIMER_H
#define MM_TIMER_H
#include <stddef.h>
#include <stdint.h>

#include "mm_error.h"

typedef struct mm_timer mm_timer;

/* Parameters of the `virtual` timer: local = base + offset_ns + skew * base (skew = ppm·1e-6). */
typedef struct mm_virtual_params {
    char base[32];      /* name of the wrapped timer (never "virtual") */
    int64_t offset_ns;  /* this rank's offset */
    double skew_ppm;    /* this rank's skew, parts per million */
    /* the wrapped timer's variant, looked up from `base` by mm_timer_open (NULL: unknown name),
     * so that the virtual variant needs no registry of its own */
    const struct mm_timer_vtable *base_vt;
} mm_virtual_params;

typedef struct mm_timer_vtable {
    const char *name;
    const char *description;
    /* 0 when usable on this machine; otherwise fills `why` with a sentence and returns MM_E_FAILED. */
    mm_status (*available)(char *why, size_t why_len);
    /* Prepares state (calibration, wrapped timer). Returns 0, or MM_E_FAILED with `why` filled. */
    mm_status (*init)(mm_timer *t, const mm_virtual_params *vp, char *why, size_t why_len);
    int64_t (*now_ns)(const mm_timer *t);
    void (*finalize)(mm_timer *t);
    /* the true time underneath (a virtual timer's base); NULL: now_ns is the truth */
    int64_t (*truth_ns)(const mm_timer *t);
    /* 1: reads one clock the kernel keeps for all its processes (a POSIX clock of the host),
     * so ranks on one kernel read the same time; 0: a per-process or per-core source (TSC
     * counters, MPI_Wtime's own base, a virtual clock) */
    int kernel_wide;
    /* 1: readable only between MPI_Init and MPI_Finalize (MPI_Wtime), so available() refuses
     * before MPI_Init; a launch opens its timer after MPI_Init, and options checked before it
     * (--validate) do not take that refusal for the machine's */
    int needs_mpi;
} mm_timer_vtable;

struct mm_timer {
    const mm_timer_vtable *vt;
    void *state;            /* variant-owned */
    double resolution_ns;   /* measured at init by mm_timer_probe */
    double overhead_ns;     /* per-call cost, measured at init */
    double tsc_hz;          /* tsc only; 0 otherwise */
    int64_t virtual_offset_ns; /* virtual only: recorded in meta.json */
    double virtual_skew_ppm;
    /* Set when more ranks share this host than there are CPUs: busy-waits then yield the CPU
     * (sched_yield) in their loop, so that the ranks they wait for can run. */
    int yield_while_waiting;
};

/* The registry, NULL-terminated. */
extern const mm_timer_vtable *const mm_timer_registry[];
const mm_timer_vtable *mm_timer_find(const char *name);
/* Comma-separated names, for messages and --help. */
const char *mm_timer_names(void);

/* Looks up, checks availability, inits and probes resolution/overhead.
 * Returns 0, or MM_E_FAILED with a message in `why`. */
mm_status mm_timer_open(mm_timer *t, const char *name, const mm_virtual_params *vp, char *why,
                        size_t why_len);
/* The same for a variant already looked up (vt not NULL). */
mm_status mm_timer_open_variant(mm_timer *t, const mm_timer_vtable *vt, const mm_virtual_params *vp,
                                char *why, size_t why_len);
void mm_timer_close(mm_timer *t);

/* qsort comparator for int64 nanoseconds (medians of durations). */
static inline int mm_cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static inline int64_t mm_timer_now(const mm_timer *t) { return t->vt->now_ns(t); }

/* The true time underlying a virtual timer (its base timer); for any other timer, now_ns.
 * Used only by --sync-check to report true errors. */
int64_t mm_timer_truth_ns(const mm_timer *t);

/* Busy-waits until now_ns(t) >= deadline_ns (yielding the CPU in the loop when
 * t->yield_while_waiting). */
void mm_timer_wait_until(const mm_timer *t, int64_t deadline_ns);
/* Sleeps (nanosleep, not a busy wait) until now_ns(t) >= deadline_ns: for waits outside any
 * timed region (the clock syncs' staggered points, --sync-check's check times). */
void mm_timer_sleep_until(const mm_timer *t, int64_t deadline_ns);

/* Measures the smallest non-zero step and the mean per-call cost; fills the fields. */
void mm_timer_probe(mm_timer *t);

/* Per-variant vtables (one file each). */
extern const mm_timer_vtable mm_timer_monotonic;
extern const mm_timer_vtable mm_timer_monotonic_raw;
extern const mm_timer_vtable mm_timer_realtime;
extern const mm_timer_vtable mm_timer_wtime;
extern const mm_timer_vtable mm_timer_tsc;
extern const mm_timer_vtable mm_timer_virtual;

#endif
