/* SPDX-License-Identifier: BSD-3-Clause */
/* timer_internal.h — names shared between the timer files (and the timer unit test), not part
 * of the public interface. */
#ifndef MM_TIMER_INTERNAL_H
#define MM_TIMER_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "mm_timer.h"

/* Reads a POSIX clock as int64 nanoseconds. */
static inline int64_t mm__clock_ns(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

/* 0 when clock_gettime works for `clock`; otherwise -1 with a sentence naming `timer_name`. */
mm_status mm__clock_check(clockid_t clock, const char *timer_name, char *why, size_t why_len);

/* The virtual timer's mapping: base + offset_ns + round(skew_ppm * 1e-6 * base), where the
 * product is computed in long double and rounded half away from zero (llroundl), so the same
 * inputs give the same output everywhere long double is the x87 80-bit type. */
int64_t mm__virtual_local_ns(int64_t base_ns, int64_t offset_ns, double skew_ppm);

#endif
