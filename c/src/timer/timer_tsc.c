/* SPDX-License-Identifier: BSD-3-Clause */
/* timer_tsc.c — the CPU's time-stamp counter, read with RDTSCP, converted to nanoseconds.
 *
 * What: ticks are mapped onto CLOCK_MONOTONIC_RAW's time line: at init we take a (raw ns,
 * ticks) pair, wait ~40 ms, take another, and derive the frequency; afterwards
 * ns = ns0 + (ticks - ticks0) * 1e9 / hz, evaluated in 128-bit fixed point (48 fraction bits),
 * so the conversion itself adds < 1e-13 relative error even after weeks; the calibration's
 * own error (a few ppm: ~50 ns pair uncertainty over 40 ms) dominates and is constant, i.e.
 * it looks like a clock skew, which the linear clock-sync models absorb.
 * Why: the lowest-overhead, finest-grained clock on x86-64 (a few ns per read), as used by
 * Netgauge and ReproMPI. Only valid when the counter rate does not depend on the core's
 * frequency or sleep state (constant_tsc, nonstop_tsc) and RDTSCP exists (it waits for the
 * preceding instructions, so the timed call is not reordered past the read). Processes
 * should be pinned (counters of different sockets may differ).
 * Cost: one RDTSCP (~10–40 cycles) and a 128-bit multiply per read; ~40 ms once at init
 * (2 ms of it spinning).
 * Paper: Hoefler, Schneider & Lumsdaine 2010 §2.1 (RDTSC and frequency scaling); Hunold &
 * Carpen-Amarie 2016 §3.3 (constant_tsc / nonstop_tsc flags, RDTSCP, pinning). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm_timer.h"
#include "timer_internal.h"
#include "mm_error.h"

#if defined(__x86_64__) && defined(__SIZEOF_INT128__) && defined(CLOCK_MONOTONIC_RAW)
#define MM__TSC_SUPPORTED 1
#else
#define MM__TSC_SUPPORTED 0
#endif

/* Fraction bits of the ns-per-tick multiplier. */
#define MM__TSC_SHIFT 48
/* How long the calibration waits between its two (raw ns, ticks) pairs. */
#define MM__TSC_CALIBRATION_NS 40000000L
/* ... of which the last stretch is spent spinning rather than sleeping. */
#define MM__TSC_SPIN_NS 2000000L
/* Tries per pair; the one with the narrowest bracket of raw reads wins. */
#define MM__TSC_PAIR_TRIES 7

static const char *const mm__tsc_required_flags[] = {"constant_tsc", "nonstop_tsc", "rdtscp"};

/* 1 when `word` occurs as a whole space-separated word in `line`. */
static int mm__has_word(const char *line, const char *word) {
    size_t n = strlen(word);
    for (const char *p = strstr(line, word); p; p = strstr(p + 1, word)) {
        int starts = p == line || p[-1] == ' ' || p[-1] == '\t' || p[-1] == ':';
        int ends = p[n] == '\0' || p[n] == ' ' || p[n] == '\n' || p[n] == '\t';
        if (starts && ends) return 1;
    }
    return 0;
}

static mm_status mm__tsc_available(char *why, size_t why_len) {
#if !MM__TSC_SUPPORTED
    snprintf(why, why_len,
             "timer 'tsc' needs an x86-64 CPU, a compiler with 128-bit integers and "
             "CLOCK_MONOTONIC_RAW (Linux) to calibrate against; this build lacks one of them; "
             "use 'monotonic'");
    return MM_E_FAILED;
#else
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) {
        snprintf(why, why_len,
                 "timer 'tsc' refused: cannot read /proc/cpuinfo (%s) to check the flags "
                 "constant_tsc, nonstop_tsc and rdtscp; use 'monotonic-raw'",
                 strerror(errno));
        return MM_E_FAILED;
    }
    char *line = NULL;
    size_t cap = 0;
    int found_flags = 0;
    char missing[128] = "";
    while (getline(&line, &cap, f) > 0) {
        if (strncmp(line, "flags", 5) != 0) continue;
        found_flags = 1;
        for (size_t i = 0; i < sizeof mm__tsc_required_flags / sizeof *mm__tsc_required_flags;
             i++) {
            if (mm__has_word(line, mm__tsc_required_flags[i])) continue;
            if (missing[0]) strncat(missing, ", ", sizeof missing - strlen(missing) - 1);
            strncat(missing, mm__tsc_required_flags[i], sizeof missing - strlen(missing) - 1);
        }
        break; /* the first CPU speaks for all (they share one model) */
    }
    free(line);
    fclose(f);
    if (!found_flags) {
        snprintf(why, why_len,
                 "timer 'tsc' refused: /proc/cpuinfo has no 'flags' line to check constant_tsc, "
                 "nonstop_tsc and rdtscp; use 'monotonic-raw'");
        return MM_E_FAILED;
    }
    if (missing[0]) {
        snprintf(why, why_len,
                 "timer 'tsc' refused: /proc/cpuinfo lacks the flag(s) %s (constant_tsc: rate "
                 "independent of CPU frequency; nonstop_tsc: keeps counting in sleep states; "
                 "rdtscp: the ordered read); use 'monotonic-raw'",
                 missing);
        return MM_E_FAILED;
    }
    return 0;
#endif
}

#if MM__TSC_SUPPORTED

/* GCC/Clang's 128-bit integer (__extension__ keeps -std=c11 -pedantic quiet). */
__extension__ typedef __int128 mm__i128;

typedef struct mm__tsc_state {
    uint64_t ticks0;  /* counter at the calibration's first pair */
    int64_t ns0;      /* CLOCK_MONOTONIC_RAW at the same instant */
    uint64_t mult;    /* ns per tick, times 2^MM__TSC_SHIFT */
} mm__tsc_state;

static inline uint64_t mm__rdtscp(void) {
    uint32_t lo, hi, aux;
    __asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
    (void)aux;
    return ((uint64_t)hi << 32) | lo;
}

/* A (raw ns, ticks) pair: the raw time is the midpoint of two raw reads around the counter
 * read; of several tries, the one with the narrowest bracket is kept. */
static void mm__tsc_pair(int64_t *raw_ns, uint64_t *ticks) {
    int64_t best_width = -1;
    for (int i = 0; i < MM__TSC_PAIR_TRIES; i++) {
        int64_t before = mm__clock_ns(CLOCK_MONOTONIC_RAW);
        uint64_t tk = mm__rdtscp();
        int64_t after = mm__clock_ns(CLOCK_MONOTONIC_RAW);
        int64_t width = after - before;
        if (best_width < 0 || width < best_width) {
            best_width = width;
            *raw_ns = before + width / 2;
            *ticks = tk;
        }
    }
}

static mm_status mm__tsc_init(mm_timer *t, const mm_virtual_params *vp, char *why, size_t why_len) {
    (void)vp;
    int64_t raw0 = 0, raw1 = 0;
    uint64_t tk0 = 0, tk1 = 0;
    mm__tsc_pair(&raw0, &tk0);
    /* Sleep most of the interval, then spin the last stretch: reads right after a wake-up are
     * slow and lopsided (cold caches), which would bias the second pair by ~100 ns. */
    struct timespec rest = {0, MM__TSC_CALIBRATION_NS - MM__TSC_SPIN_NS};
    while (nanosleep(&rest, &rest) != 0 && errno == EINTR) {
    }
    while (mm__clock_ns(CLOCK_MONOTONIC_RAW) < raw0 + MM__TSC_CALIBRATION_NS) {
    }
    mm__tsc_pair(&raw1, &tk1);
    if (raw1 <= raw0 || tk1 <= tk0) {
        snprintf(why, why_len,
                 "timer 'tsc': calibration failed (the counter or CLOCK_MONOTONIC_RAW did not "
                 "advance over %ld ms); use 'monotonic-raw'",
                 MM__TSC_CALIBRATION_NS / 1000000L);
        return MM_E_FAILED;
    }
    long double hz = (long double)(tk1 - tk0) * 1e9L / (long double)(raw1 - raw0);
    if (hz < 1e7L || hz > 1e11L) {
        snprintf(why, why_len,
                 "timer 'tsc': calibration gave an implausible frequency (%.3Lg Hz); use "
                 "'monotonic-raw'",
                 hz);
        return MM_E_FAILED;
    }
    mm__tsc_state *s = malloc(sizeof *s);
    if (!s) {
        snprintf(why, why_len, "timer 'tsc': out of memory");
        return MM_E_FAILED;
    }
    s->ticks0 = tk0;
    s->ns0 = raw0;
    s->mult = (uint64_t)(1e9L * (long double)((uint64_t)1 << MM__TSC_SHIFT) / hz + 0.5L);
    t->state = s;
    t->tsc_hz = (double)hz;
    return 0;
}

static int64_t mm__tsc_now(const mm_timer *t) {
    const mm__tsc_state *s = t->state;
    /* Signed: a read on another core may be a few ticks behind ticks0. */
    int64_t dticks = (int64_t)(mm__rdtscp() - s->ticks0);
    mm__i128 scaled = (mm__i128)dticks * (mm__i128)s->mult;
    return s->ns0 + (int64_t)(scaled >> MM__TSC_SHIFT);
}

#else /* not supported: available() refuses, so these are never reached */

static mm_status mm__tsc_init(mm_timer *t, const mm_virtual_params *vp, char *why, size_t why_len) {
    (void)t, (void)vp;
    return mm__tsc_available(why, why_len);
}

static int64_t mm__tsc_now(const mm_timer *t) {
    (void)t;
    return 0;
}

#endif

static void mm__tsc_finalize(mm_timer *t) {
    free(t->state);
    t->state = NULL;
}

const mm_timer_vtable mm_timer_tsc = {
    .name = "tsc",
    .description = "RDTSCP time-stamp counter, calibrated against CLOCK_MONOTONIC_RAW at start "
                   "(x86-64; needs constant_tsc, nonstop_tsc, rdtscp; pin the ranks)",
    .available = mm__tsc_available,
    .init = mm__tsc_init,
    .now_ns = mm__tsc_now,
    .finalize = mm__tsc_finalize,
};
