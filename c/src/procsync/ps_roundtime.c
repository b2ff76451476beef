/* SPDX-License-Identifier: BSD-3-Clause */
/* ps_roundtime.c — round-time process synchronization (Hunold & Carpen-Amarie, "Hierarchical
 * Clock Synchronization in MPI", CLUSTER 2018; docs/ALGORITHMS.md).
 *
 * What: per repetition, an MPI_Barrier, then rank 0 broadcasts a start time on the global clock,
 *   now + bcast_factor × (measured start delay: barrier + broadcast, from rank 0 reading its
 *   clock to the last rank holding the value, measured per test); every rank busy-waits for it
 *   on its own clock
 *   (converted with its clock model). A rank that gets the start time when it has already passed
 *   is late. After the call one allreduce tells every rank whether anyone was late: then the
 *   repetition is invalid on all ranks (MM_INVALID_ROUND_LATE) and the loop redoes it. The same
 *   allreduce carries rank 0's verdict on the time budget (--roundtime-budget-s per test, default
 *   1 s; --nrep is the cap), so that all ranks stop together.
 * Why: unlike a window schedule, every repetition gets a fresh, barely-future start time, so
 *   clock drift cannot accumulate over a long test, and a late start costs one redo instead of a
 *   silently skewed measurement.
 * When the window switched to it (switch_rule.c), a round is a repetition attempt: after every
 *   batch of attempts (mm_window_batch_length) whose late fraction passed the switch threshold
 *   the test asks to go on with barrier; its time budget is then the test's (ps->
 *   test_deadline_local_ns), not --roundtime-budget-s.
 * Cost per repetition: a barrier and a broadcast before the timed call, an allreduce of two ints
 *   after it — all outside the timed region; per test 16 barrier + broadcast rounds to measure
 *   the start delay. */
#include <stdlib.h>

#include "mm_procsync.h"

/* A start time must leave the broadcast time to arrive; never plan closer than this. */
#define MM__ROUNDTIME_MIN_SLACK_NS 1000

typedef struct mm__roundtime_state {
    int64_t slack_ns;
    int64_t budget_end_local_ns; /* rank 0 */
    int stop;
    long batch, attempts, late; /* rounds of the current batch, and how many were late */
} mm__roundtime_state;

static int mm__roundtime_begin(mm_procsync *ps, mm_timed_fn call, const void *arg) {
    mm__roundtime_state *st = ps->state;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) return MPI_ERR_NO_MEM;
        ps->state = st;
    }
    int64_t delay = mm_procsync_start_delay_ns(ps);
    st->slack_ns = (int64_t)(ps->cfg->ps.bcast_factor * (double)delay);
    if (st->slack_ns < MM__ROUNDTIME_MIN_SLACK_NS) st->slack_ns = MM__ROUNDTIME_MIN_SLACK_NS;
    st->stop = 0;
    ps->window_ns = st->slack_ns;
    ps->first_start_global_ns = 0;
    ps->test_start_local_ns = mm_timer_now(ps->timer);
    st->budget_end_local_ns =
        ps->test_start_local_ns + (int64_t)(ps->cfg->ps.roundtime_budget_s * 1e9);
    /* the test's own budget ends it too; a roundtime switched to has the rest of that only */
    if (ps->test_deadline_local_ns > 0 &&
        (ps->switched || ps->test_deadline_local_ns < st->budget_end_local_ns))
        st->budget_end_local_ns = ps->test_deadline_local_ns;
    st->batch = mm_window_batch_length(ps->cfg->measure.warmup, ps->cfg->nrep);
    st->attempts = st->late = 0;
    return MPI_SUCCESS;
}

static int mm__roundtime_before(mm_procsync *ps, long rep) {
    mm__roundtime_state *st = ps->state;
    return mm_procsync_start_after_slack(ps, rep, st->slack_ns);
}

static int mm__roundtime_after(mm_procsync *ps, long rep, int64_t start_local_ns,
                               int64_t end_local_ns, int before_flags) {
    mm__roundtime_state *st = ps->state;
    int own = before_flags | mm_procsync_late_wakeup(ps, start_local_ns);
    int mine[2] = {own != 0, ps->rank == 0 && mm_timer_now(ps->timer) >= st->budget_end_local_ns};
    int any[2] = {0, 0};
    MM_MPI(&ps->err, MPI_Allreduce(mine, any, 2, MPI_INT, MPI_MAX, ps->comm));
    st->stop = any[1];
    /* the switch rule over a batch of rounds (alike on every rank: any[0] is agreed) */
    st->attempts++;
    st->late += any[0] != 0;
    if (st->attempts == st->batch) {
        const char *why = mm_switch_why(st->late, st->attempts, ps->switch_late_fraction, 1, 0);
        if (why && ps->may_switch) {
            ps->switch_why = why;
            ps->switch_late_fraction_seen = (double)st->late / (double)st->attempts;
        }
        st->attempts = st->late = 0;
    }
    /* non-zero alike on every rank (the loop redoes on it); the rank's own reasons are kept for
     * the per-reason counts */
    return any[0] ? MM_INVALID_ROUND_LATE | own : 0;
}

static int mm__roundtime_exhausted(mm_procsync *ps) {
    const mm__roundtime_state *st = ps->state;
    return st->stop;
}

const mm_procsync_vtable mm_procsync_roundtime = {
    .name = "roundtime",
    .scheme = "round-time",
    .needs_global_clock = 1,
    .redoes_invalid = 1,
    .barrier_in_timed_region = 0,
    .has_planned_start = 1,
    .begin_test = mm__roundtime_begin,
    .before_rep = mm__roundtime_before,
    .after_rep = mm__roundtime_after,
    .end_test = mm_procsync_nothing_end,
    .budget_exhausted = mm__roundtime_exhausted,
};
