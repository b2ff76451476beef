/* SPDX-License-Identifier: BSD-3-Clause */
/* ps_harmonize.c — harmonized start with adaptive slack and clock re-sync (after MPIX_Harmonize,
 * Schuchart, Hunold & Bosilca, EuroMPI 2023; docs/ALGORITHMS.md).
 *
 * What: as roundtime (per repetition: barrier, rank 0 broadcasts a start time = now + slack on
 *   the global clock, ranks wait for it, one allreduce after the call tells everyone whether some
 *   rank was late, late repetitions are redone, a time budget per test ends it), but
 *   - the slack adapts: it starts at bcast_factor × (measured start delay, as in roundtime),
 *     doubles after a late round and shrinks by 1/32 after an on-time one (so about one round
 *     in twenty is late once it has settled), never below the measured delay (nor 1 µs) and
 *     never above 100 ms; the largest slack used is reported as the window;
 *   - the clocks are re-synchronized (mm_clocksync_run, a new sync.csv phase) before a
 *     repetition whenever the last sync is older than --resync-s (default 1 s; <= 0: never).
 *     Rank 0 decides on its own clock; the verdict travels in the same allreduce, so all ranks
 *     re-sync before the same repetition.
 * Why: the smallest slack that works keeps the ranks' idle time short, and the re-syncs keep an
 *   offset-only clock (hca3o) within ~1 µs despite drift — the current best practice.
 * Cost per repetition: barrier + broadcast before, allreduce of three ints after the call; per
 *   test 16 barrier + broadcast rounds to measure the start delay; one clock sync per resync
 *   period. */
#include <stdlib.h>

#include "mm_procsync.h"

#define MM__HARMONIZE_MIN_SLACK_NS 1000
#define MM__HARMONIZE_MAX_SLACK_NS 100000000
#define MM__HARMONIZE_DEFAULT_RESYNC_S 1.0

typedef struct mm__harmonize_state {
    int64_t slack_ns, min_slack_ns;
    int64_t budget_end_local_ns; /* rank 0 */
    int64_t resync_ns;           /* <= 0: never */
    int stop, resync_due;
} mm__harmonize_state;

/* Rank 0's verdict: is the last clock sync older than the bound? */
static int mm__resync_due(const mm_procsync *ps, const mm__harmonize_state *st) {
    if (ps->rank != 0 || st->resync_ns <= 0 || !ps->cs) return 0;
    return mm_timer_now(ps->timer) - ps->cs->last_sync_local_ns >= st->resync_ns;
}

static int mm__harmonize_begin(mm_procsync *ps, mm_timed_fn call, const void *arg) {
    mm__harmonize_state *st = ps->state;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) return MPI_ERR_NO_MEM;
        ps->state = st;
    }
    const mm_config *cfg = ps->cfg;
    double resync_s = cfg->cs.resync_given ? cfg->cs.resync_s : MM__HARMONIZE_DEFAULT_RESYNC_S;
    st->resync_ns = resync_s > 0 ? (int64_t)(resync_s * 1e9) : 0;
    int64_t delay = mm_procsync_start_delay_ns(ps);
    st->min_slack_ns = delay > MM__HARMONIZE_MIN_SLACK_NS ? delay : MM__HARMONIZE_MIN_SLACK_NS;
    st->slack_ns = (int64_t)(cfg->ps.bcast_factor * (double)delay);
    if (st->slack_ns < st->min_slack_ns) st->slack_ns = st->min_slack_ns;
    if (st->slack_ns > MM__HARMONIZE_MAX_SLACK_NS) st->slack_ns = MM__HARMONIZE_MAX_SLACK_NS;
    st->stop = 0;
    st->resync_due = mm__resync_due(ps, st);
    MM_MPI(&ps->err, MPI_Bcast(&st->resync_due, 1, MPI_INT, 0, ps->comm));
    ps->nresyncs = 0;
    ps->resync_failures = 0;
    ps->window_ns = st->slack_ns;
    ps->first_start_global_ns = 0;
    ps->test_start_local_ns = mm_timer_now(ps->timer);
    st->budget_end_local_ns = ps->test_start_local_ns + (int64_t)(cfg->ps.roundtime_budget_s * 1e9);
    /* the test's own budget (--launch-budget-s) ends it too */
    if (ps->test_deadline_local_ns > 0 && ps->test_deadline_local_ns < st->budget_end_local_ns)
        st->budget_end_local_ns = ps->test_deadline_local_ns;
    return MPI_SUCCESS;
}

static int mm__harmonize_before(mm_procsync *ps, long rep) {
    mm__harmonize_state *st = ps->state;
    if (st->resync_due) {
        /* a failed re-sync keeps the previous clock model (mm_clocksync_run); it is counted, and
         * the loop marks the test failed */
        if (mm_clocksync_run(ps->cs) != 0) ps->resync_failures++;
        ps->nresyncs++;
        st->resync_due = 0;
    }
    return mm_procsync_start_after_slack(ps, rep, st->slack_ns);
}

static int mm__harmonize_after(mm_procsync *ps, long rep, int64_t start_local_ns,
                               int64_t end_local_ns, int before_flags) {
    mm__harmonize_state *st = ps->state;
    int own = before_flags | mm_procsync_late_wakeup(ps, start_local_ns);
    int mine[3] = {own != 0, ps->rank == 0 && mm_timer_now(ps->timer) >= st->budget_end_local_ns,
                   mm__resync_due(ps, st)};
    int any[3] = {0, 0, 0};
    MM_MPI(&ps->err, MPI_Allreduce(mine, any, 3, MPI_INT, MPI_MAX, ps->comm));
    st->stop = any[1];
    st->resync_due = any[2];
    if (any[0]) {
        st->slack_ns *= 2;
        if (st->slack_ns > MM__HARMONIZE_MAX_SLACK_NS) st->slack_ns = MM__HARMONIZE_MAX_SLACK_NS;
        if (st->slack_ns > ps->window_ns) ps->window_ns = st->slack_ns;
    } else {
        st->slack_ns -= st->slack_ns / 32;
        if (st->slack_ns < st->min_slack_ns) st->slack_ns = st->min_slack_ns;
    }
    return any[0] ? MM_INVALID_ROUND_LATE | own : 0;
}

static int mm__harmonize_exhausted(mm_procsync *ps) {
    const mm__harmonize_state *st = ps->state;
    return st->stop;
}

const mm_procsync_vtable mm_procsync_harmonize = {
    .name = "harmonize",
    .scheme = "harmonize",
    .needs_global_clock = 1,
    .redoes_invalid = 1,
    .barrier_in_timed_region = 0,
    .has_planned_start = 1,
    .begin_test = mm__harmonize_begin,
    .before_rep = mm__harmonize_before,
    .after_rep = mm__harmonize_after,
    .end_test = mm_procsync_nothing_end,
    .budget_exhausted = mm__harmonize_exhausted,
};
