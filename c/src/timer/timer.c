/* SPDX-License-Identifier: BSD-3-Clause */
/* timer.c — what every timer variant shares: open/close of a variant, the probe that measures
 * a timer's resolution and per-call overhead, busy-waiting, and the "true time" accessor used
 * by --sync-check.
 *
 * Why: the timer is chosen at run time by name (--timer), never by a rebuild, and every launch
 * reports the resolution and overhead of the timer it used, because a timer whose overhead is
 * not small against the measured interval, or whose resolution is not ~10x finer, biases the
 * result (Hoefler & Belli 2015, "Measurement perturbances"; LibSciBench reports both).
 * Cost: mm_timer_probe makes MM__PROBE_RESOLUTION_READS + MM__PROBE_OVERHEAD_READS reads
 * (a few hundred µs with clock_gettime); the rest is O(1).
 * Paper: Hoefler, Schneider & Lumsdaine 2010 §2.1 (local time measurement); Hunold &
 * Carpen-Amarie 2016 §3.3 (on the resolution of clocks). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sched.h>
#include <stdlib.h>

#include "mm_timer.h"
#include "timer_internal.h"
#include "mm_error.h"

#ifdef MM_SIMGRID
/* Under SimGrid's SMPI every read is a simulation step (a context switch that advances the one
 * simulated clock by its smpi/wtime setting): thousands of reads per rank cost minutes at 1024
 * ranks and tell nothing a few reads do not. */
#define MM__PROBE_RESOLUTION_READS 16
#define MM__PROBE_OVERHEAD_READS 16
#else
/* Successive reads whose steps give the grid. */
#define MM__PROBE_RESOLUTION_READS 4000
/* Calls timed together to get the mean cost of one. */
#define MM__PROBE_OVERHEAD_READS 10000
#endif
/* A coarse timer may not change within those reads: keep reading up to this many. */
#define MM__PROBE_RESOLUTION_MAX_READS 20000000L

/* Kept in registry order; test_timer.c checks that the two agree. */
const char *mm_timer_names(void) {
    return "monotonic, monotonic-raw, realtime, wtime, tsc, virtual";
}

mm_status mm__clock_check(clockid_t clock, const char *timer_name, char *why, size_t why_len) {
    struct timespec ts;
    if (clock_gettime(clock, &ts) == 0) return 0;
    snprintf(why, why_len, "timer '%s': clock_gettime refused this clock on this system",
             timer_name);
    return MM_E_FAILED;
}

mm_status mm_timer_open_variant(mm_timer *t, const mm_timer_vtable *vt, const mm_virtual_params *vp,
                                char *why, size_t why_len) {
    memset(t, 0, sizeof *t);
    if (vt->available(why, why_len) != 0) return MM_E_FAILED;
    t->vt = vt;
    if (vt->init(t, vp, why, why_len) != 0) {
        memset(t, 0, sizeof *t);
        return MM_E_FAILED;
    }
    mm_timer_probe(t);
    return 0;
}

void mm_timer_close(mm_timer *t) {
    if (t->vt && t->vt->finalize) t->vt->finalize(t);
    memset(t, 0, sizeof *t);
}

int64_t mm_timer_truth_ns(const mm_timer *t) {
    if (t->vt && t->vt->truth_ns) return t->vt->truth_ns(t);
    return mm_timer_now(t);
}

/* Tells the CPU we are spinning (frees the pipeline for a hyperthread sibling). */
static inline void mm__spin_hint(void) {
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void mm_timer_wait_until(const mm_timer *t, int64_t deadline_ns) {
#ifdef MM_SIMGRID
    /* In SimGrid every clock read advances simulated time by ~10 ns and costs a context switch,
     * so a spin over milliseconds is millions of simulation steps: sleep (SMPI intercepts
     * nanosleep; simulated time just jumps) up to a margin before the deadline, then spin the
     * last stretch. The margin (50 ns plus 0.1 % of what is left) covers a virtual clock's skew
     * up to 1000 ppm (the sleep runs on the true clock, the deadline is on the local one; the
     * simulated platforms use at most 100 ppm) and rounding; sleeping again until at most
     * 100 ns are left keeps the spin to ~10 reads (a read is ~10 simulated ns): with 1-2 µs
     * left to spin, the window waits of 1024 ranks took 0.5 s of simulator time per repetition. */
    for (int64_t left = deadline_ns - mm_timer_now(t); left > 100;
         left = deadline_ns - mm_timer_now(t)) {
        int64_t nap = left - 50 - left / 1000;
        struct timespec ts = {(time_t)(nap / 1000000000), (long)(nap % 1000000000)};
        nanosleep(&ts, NULL);
    }
#endif
    if (t->yield_while_waiting) {
        while (mm_timer_now(t) < deadline_ns) sched_yield();
    } else {
        while (mm_timer_now(t) < deadline_ns) mm__spin_hint();
    }
}

static int64_t mm__gcd(int64_t a, int64_t b) {
    while (b != 0) {
        int64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

void mm_timer_probe(mm_timer *t) {
    /* Resolution: the grid the readings lie on, the greatest common divisor of the positive
     * differences between successive reads. Not the smallest difference: on a clock finer than
     * a read that is the read's cost (15-17 ns on a 1 ns CLOCK_MONOTONIC here; the cost is
     * overhead_ns), and the analysis counts a difference only beyond this grid. */
    int64_t grid = 0;
    int64_t prev = mm_timer_now(t);
    for (long i = 0; i < MM__PROBE_RESOLUTION_MAX_READS; i++) {
        int64_t cur = mm_timer_now(t);
        int64_t step = cur - prev;
        if (step > 0) grid = mm__gcd(grid, step);
        prev = cur;
        if (i >= MM__PROBE_RESOLUTION_READS && grid > 0) break;
    }
    t->resolution_ns = (double)grid; /* 0 only if the timer never moved */

    /* Overhead: N back-to-back calls timed with the timer itself, divided by N. The sum keeps
     * the reads from being optimized away. */
    volatile int64_t sink = 0;
    int64_t begin = mm_timer_now(t);
    for (int i = 0; i < MM__PROBE_OVERHEAD_READS; i++) sink += mm_timer_now(t);
    int64_t end = mm_timer_now(t);
    (void)sink;
    t->overhead_ns = (double)(end - begin) / MM__PROBE_OVERHEAD_READS;
}

void mm_timer_sleep_until(const mm_timer *t, int64_t deadline_ns) {
    for (;;) {
        int64_t left = deadline_ns - mm_timer_now(t);
        if (left <= 0) return;
        struct timespec ts = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
        nanosleep(&ts, NULL);
    }
}
