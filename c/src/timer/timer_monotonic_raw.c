/* SPDX-License-Identifier: BSD-3-Clause */
/* timer_monotonic_raw.c — clock_gettime(CLOCK_MONOTONIC_RAW) in nanoseconds (Linux).
 *
 * Why: the hardware clock without NTP's rate adjustments, so that drift between hosts is the
 * crystals' drift only and a linear clock model fits it (docs/ALGORITHMS.md). It is also the
 * reference the tsc timer calibrates against.
 * Cost: one clock_gettime per read (vDSO on recent kernels).
 * Paper: Hoefler, Schneider & Lumsdaine 2010 §2.1–2.2 (clock sources, NTP, skew). */
#include <stdio.h>
#include <time.h>

#include "mm_timer.h"
#include "timer_internal.h"
#include "mm_error.h"

static mm_status mm__monotonic_raw_available(char *why, size_t why_len) {
#ifdef CLOCK_MONOTONIC_RAW
    return mm__clock_check(CLOCK_MONOTONIC_RAW, "monotonic-raw", why, why_len);
#else
    snprintf(why, why_len,
             "timer 'monotonic-raw' needs CLOCK_MONOTONIC_RAW, which this system does not "
             "define (it is Linux-specific); use 'monotonic'");
    return MM_E_FAILED;
#endif
}

static mm_status mm__monotonic_raw_init(mm_timer *t, const mm_virtual_params *vp, char *why,
                                        size_t why_len) {
    (void)t, (void)vp, (void)why, (void)why_len;
    return 0;
}

static int64_t mm__monotonic_raw_now(const mm_timer *t) {
    (void)t;
#ifdef CLOCK_MONOTONIC_RAW
    return mm__clock_ns(CLOCK_MONOTONIC_RAW);
#else
    return mm__clock_ns(CLOCK_MONOTONIC); /* unreachable: available() refuses */
#endif
}

static void mm__monotonic_raw_finalize(mm_timer *t) { (void)t; }

const mm_timer_vtable mm_timer_monotonic_raw = {
    .name = "monotonic-raw",
    .description = "clock_gettime(CLOCK_MONOTONIC_RAW): monotonic, not adjusted by NTP (Linux)",
    .available = mm__monotonic_raw_available,
    .init = mm__monotonic_raw_init,
    .now_ns = mm__monotonic_raw_now,
    .finalize = mm__monotonic_raw_finalize,
    .kernel_wide = 1,
};
