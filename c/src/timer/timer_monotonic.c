/* SPDX-License-Identifier: BSD-3-Clause */
/* timer_monotonic.c — the default timer: clock_gettime(CLOCK_MONOTONIC) in nanoseconds.
 *
 * Why: monotonic (never steps backwards when the wall clock is set) and cheap (vDSO, no system
 * call, ~20 ns). NTP may slew its rate slightly; monotonic-raw avoids even that.
 * Cost: one clock_gettime per read.
 * Paper: Hoefler, Schneider & Lumsdaine 2010 §2.1 (system time and its software stack). */
#include <time.h>

#include "mm_timer.h"
#include "timer_internal.h"

static mm_status mm__monotonic_available(char *why, size_t why_len) {
    return mm__clock_check(CLOCK_MONOTONIC, "monotonic", why, why_len);
}

static mm_status mm__monotonic_init(mm_timer *t, const mm_virtual_params *vp, char *why,
                                    size_t why_len) {
    (void)t, (void)vp, (void)why, (void)why_len;
    return 0;
}

static int64_t mm__monotonic_now(const mm_timer *t) {
    (void)t;
    return mm__clock_ns(CLOCK_MONOTONIC);
}

static void mm__monotonic_finalize(mm_timer *t) { (void)t; }

const mm_timer_vtable mm_timer_monotonic = {
    .name = "monotonic",
    .description = "clock_gettime(CLOCK_MONOTONIC): monotonic, rate slewed by NTP (default)",
    .available = mm__monotonic_available,
    .init = mm__monotonic_init,
    .now_ns = mm__monotonic_now,
    .finalize = mm__monotonic_finalize,
    .kernel_wide = 1,
};
