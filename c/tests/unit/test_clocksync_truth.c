/* SPDX-License-Identifier: BSD-3-Clause */
/* test_clocksync_truth.c — the true error of a global clock (mm_clocksync_deviation_from_truth,
 * what --sync-check's true errors are made of) against a scripted timer (no MPI): each read of
 * the clock or of the truth returns the next base time of a script, so that a rank preempted
 * between its reads is simulated exactly. */
#include <stdint.h>
#include <string.h>

#include "mm_check.h"
#include "mm_clocksync.h"
#include "mm_timer.h"

/* The rank's clock runs OFFSET_NS ahead of the truth; the script gives the truth at each read. */
enum { OFFSET_NS = 250000, SCRIPT_MAX = 32 };

typedef struct script {
    int64_t base[SCRIPT_MAX];
    int n, next;
} script;

static int64_t script_read(const mm_timer *t) {
    script *s = t->state;
    int64_t b = s->base[s->next < s->n ? s->next : s->n - 1];
    if (s->next < s->n) s->next++;
    return b;
}
static int64_t script_now(const mm_timer *t) { return script_read(t) + OFFSET_NS; }

static const mm_timer_vtable script_vt = {
    .name = "script",
    .description = "test only: reads a script of base times",
    .now_ns = script_now,
    .truth_ns = script_read,
};

/* The deviation of an identity model (global = local) shifted by `intercept_ns` on a clock
 * OFFSET_NS ahead, when the reads (truth, clock, truth, truth, clock, truth, ...) see the base
 * times of `base`. */
static int64_t deviation_of(const int64_t *base, int n, double intercept_ns) {
    script s = {{0}, n, 0};
    memcpy(s.base, base, (size_t)n * sizeof *base);
    mm_timer t;
    memset(&t, 0, sizeof t);
    t.vt = &script_vt;
    t.state = &s;
    mm_clocksync cs;
    memset(&cs, 0, sizeof cs);
    cs.timer = &t;
    cs.model = mm_model_identity();
    cs.model.intercept_ns = intercept_ns; /* offset = local − global */
    return mm_clocksync_deviation_from_truth(&cs);
}

static int64_t deviation(const int64_t *base, int n) { return deviation_of(base, n, 0.0); }

int main(void) {
    /* no preemption: the clock is read at the midpoint of the truth reads, exactly */
    const int64_t steady[] = {1000, 1010, 1020, 1030, 1040, 1050, 1060, 1070, 1080};
    CHECK_EQ_INT(deviation(steady, 9), OFFSET_NS);

    /* preempted for 132 us between the first truth read and the clock read: that reading alone
     * puts the truth at the midpoint, 66 us before the clock was read (the --sync-check true
     * error that read 66 us while the residual read 54 ns); the next readings are tight */
    const int64_t preempted_before_clock[] = {0, 132000, 132010, 132020, 132030, 132040, 132050, 132060, 132070};
    CHECK_EQ_INT(deviation(preempted_before_clock, 9), OFFSET_NS);

    /* preempted between the clock read and the second truth read: the other sign */
    const int64_t preempted_after_clock[] = {0, 10, 132000, 132010, 132020, 132030, 132040, 132050, 132060};
    CHECK_EQ_INT(deviation(preempted_after_clock, 9), OFFSET_NS);

    /* a later reading preempted: the first, tight one stays */
    const int64_t preempted_later[] = {0, 10, 20, 30, 40, 90000, 90010, 90020, 90030};
    CHECK_EQ_INT(deviation(preempted_later, 9), OFFSET_NS);

    /* a model that maps the clock back onto the truth: deviation 0 */
    CHECK_EQ_INT(deviation_of(preempted_before_clock, 9, OFFSET_NS), 0);
    return mm_check_summary("test_clocksync_truth");
}
