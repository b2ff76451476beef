/* SPDX-License-Identifier: BSD-3-Clause */
/* timer_virtual.c — a timer with a known, injected offset and skew: it wraps another timer (the
 * "base", never itself) and reads local = base + offset_ns + skew_ppm·1e-6·base.
 *
 * Why: on one host every rank shares one physical clock, so clock-sync algorithms cannot be
 * checked against a true offset other than 0. Giving each rank its own offset (up to ±1 s)
 * and skew (up to ±100 ppm) makes the truth known: an algorithm's estimate must recover them,
 * offset-only methods must visibly drift, and mm_timer_truth_ns (the base time) lets
 * --sync-check report true errors (docs/ALGORITHMS.md, "Checking a sync").
 * Rounding: the skew term (skew_ppm·base)/1e6 is computed in long double (64-bit mantissa on
 * x86-64: exact integers up to 2^64) and rounded half away from zero
 * (llroundl), so equal inputs give equal outputs on every run; the map is non-decreasing in
 * base for |skew| < 1e6 ppm, so a monotone base gives a monotone virtual clock.
 * Cost: one read of the base timer plus a long-double multiply per read.
 * Under SimGrid's SMPI (simulated clusters, sim/README.md) every simulated host shares one perfect
 * clock, so the offset and skew come from the platform instead: the host properties
 * clk_offset_ns and clk_skew_ppm of the rank's host, when present, replace the seeded values
 * (the truth of the simulated cluster lives in its platform file, where the study reads it).
 * Paper: Hoefler, Schneider & Lumsdaine 2010 §2.2 (clock skew between nodes); the injected-clock
 * testing approach is CONTRIBUTING.md, principle 5. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_timer.h"
#include "timer_internal.h"
#include "mm_error.h"
#ifdef MM_SIMGRID
#include <simgrid/host.h>
#endif

/* Beyond this the virtual clock would run backwards (skew <= -1e6 ppm) or be meaningless. */
#define MM__VIRTUAL_MAX_ABS_SKEW_PPM 1e5

typedef struct mm__virtual_state {
    mm_timer base;
    int64_t offset_ns;
    double skew_ppm;
} mm__virtual_state;

int64_t mm__virtual_local_ns(int64_t base_ns, int64_t offset_ns, double skew_ppm) {
    /* (skew·base)/1e6 rather than skew·1e-6·base: 1e-6 is inexact in binary, the division by
     * 1e6 is correctly rounded, so e.g. 0.5 ppm of 3e6 ns is exactly 1.5 ns. */
    long double drift = (long double)skew_ppm * (long double)base_ns / 1e6L;
    return base_ns + offset_ns + (int64_t)llroundl(drift);
}

static int64_t mm__virtual_base_ns(const mm_timer *t) {
    const mm__virtual_state *s = t->state;
    return mm_timer_now(&s->base);
}

static mm_status mm__virtual_available(char *why, size_t why_len) {
    (void)why, (void)why_len;
    return 0; /* the base timer's availability is checked at init */
}

#ifdef MM_SIMGRID
/* The simulated host's clock, from its platform properties (absent: the given values stay). */
static void mm__virtual_from_host(mm_virtual_params *vp) {
    const char *offset = sg_host_get_property_value(sg_host_self(), "clk_offset_ns");
    const char *skew = sg_host_get_property_value(sg_host_self(), "clk_skew_ppm");
    if (offset) vp->offset_ns = strtoll(offset, NULL, 10);
    if (skew) vp->skew_ppm = strtod(skew, NULL);
}
#endif

static mm_status mm__virtual_init(mm_timer *t, const mm_virtual_params *given, char *why,
                                  size_t why_len) {
    mm_virtual_params host_vp;
    const mm_virtual_params *vp = given;
#ifdef MM_SIMGRID
    if (given) {
        host_vp = *given;
        mm__virtual_from_host(&host_vp);
        vp = &host_vp;
    }
#else
    (void)host_vp;
#endif
    if (!vp || vp->base[0] == '\0') {
        snprintf(why, why_len,
                 "timer 'virtual' needs a base timer to wrap (one of: monotonic, "
                 "monotonic-raw, realtime, wtime, tsc)");
        return MM_E_FAILED;
    }
    if (strcmp(vp->base, mm_timer_virtual.name) == 0) {
        snprintf(why, why_len,
                 "timer 'virtual' cannot wrap itself: its base must be a real timer (one of: "
                 "monotonic, monotonic-raw, realtime, wtime, tsc)");
        return MM_E_FAILED;
    }
    if (!isfinite(vp->skew_ppm) || fabs(vp->skew_ppm) > MM__VIRTUAL_MAX_ABS_SKEW_PPM) {
        snprintf(why, why_len,
                 "timer 'virtual': skew %g ppm is out of range (|skew| <= %g ppm)", vp->skew_ppm,
                 MM__VIRTUAL_MAX_ABS_SKEW_PPM);
        return MM_E_FAILED;
    }
    mm__virtual_state *s = malloc(sizeof *s);
    if (!s) {
        snprintf(why, why_len, "timer 'virtual': out of memory");
        return MM_E_FAILED;
    }
    char base_why[512];
    if (!vp->base_vt)
        snprintf(base_why, sizeof base_why, "unknown timer '%s'; allowed: %s", vp->base,
                 mm_timer_names());
    if (!vp->base_vt || mm_timer_open_variant(&s->base, vp->base_vt, NULL, base_why,
                                              sizeof base_why) != 0) {
        snprintf(why, why_len, "timer 'virtual': cannot open its base timer: %s", base_why);
        free(s);
        return MM_E_FAILED;
    }
    s->offset_ns = vp->offset_ns;
    s->skew_ppm = vp->skew_ppm;
    t->state = s;
    t->virtual_offset_ns = vp->offset_ns;
    t->virtual_skew_ppm = vp->skew_ppm;
    t->tsc_hz = s->base.tsc_hz;
    return 0;
}

static int64_t mm__virtual_now(const mm_timer *t) {
    const mm__virtual_state *s = t->state;
    return mm__virtual_local_ns(mm_timer_now(&s->base), s->offset_ns, s->skew_ppm);
}

static void mm__virtual_finalize(mm_timer *t) {
    mm__virtual_state *s = t->state;
    if (s) mm_timer_close(&s->base);
    free(s);
    t->state = NULL;
}

const mm_timer_vtable mm_timer_virtual = {
    .name = "virtual",
    .description = "another timer plus a per-rank offset and skew (for testing clock sync)",
    .available = mm__virtual_available,
    .init = mm__virtual_init,
    .now_ns = mm__virtual_now,
    .finalize = mm__virtual_finalize,
    .truth_ns = mm__virtual_base_ns,
};
