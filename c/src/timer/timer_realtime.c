/* SPDX-License-Identifier: BSD-3-Clause */
/* timer_realtime.c — clock_gettime(CLOCK_REALTIME) in nanoseconds since the Unix epoch.
 *
 * Why: the wall clock, for comparison with tools that use gettimeofday or an MPI_Wtime built
 * on it. It can jump when the clock is set (and NTP steps it), so it is never the default;
 * a jump during a launch shows up as a negative or huge duration.
 * Cost: one clock_gettime per read.
 * Paper: Hoefler, Schneider & Lumsdaine 2010 §2.1 (gettimeofday and NTP). */
#include <time.h>

#include "mm_timer.h"
#include "timer_internal.h"

static mm_status mm__realtime_available(char *why, size_t why_len) {
    return mm__clock_check(CLOCK_REALTIME, "realtime", why, why_len);
}

static mm_status mm__realtime_init(mm_timer *t, const mm_virtual_params *vp, char *why,
                                   size_t why_len) {
    (void)t, (void)vp, (void)why, (void)why_len;
    return 0;
}

static int64_t mm__realtime_now(const mm_timer *t) {
    (void)t;
    return mm__clock_ns(CLOCK_REALTIME);
}

static void mm__realtime_finalize(mm_timer *t) { (void)t; }

const mm_timer_vtable mm_timer_realtime = {
    .name = "realtime",
    .description = "clock_gettime(CLOCK_REALTIME): wall clock; may jump when the clock is set",
    .available = mm__realtime_available,
    .init = mm__realtime_init,
    .now_ns = mm__realtime_now,
    .finalize = mm__realtime_finalize,
    .kernel_wide = 1,
};
