/* SPDX-License-Identifier: BSD-3-Clause */
/* procsync.c — what the process syncs share: the start delay, waiting for a planned start
 * (and planning one a slack ahead), the late-wakeup check, the no-op hooks. The list of them,
 * and opening one by name, is procsync_registry.c. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mm_procsync.h"


/* The delay a start time must allow: over a few barrier + broadcast rounds, how long after rank 0
 * read its global clock each rank has the value in hand (on its own global clock); the third
 * quartile per rank, the maximum over ranks. Unlike the time of a bare broadcast this includes
 * the barrier's exit skew, which is what makes a start time come too late. Collective. */
int64_t mm_procsync_start_delay_ns(mm_procsync *ps) {
    enum { ROUNDS = 16 };
    int64_t d[ROUNDS];
    for (int k = 0; k < ROUNDS; k++) {
        int64_t sent = 0;
        MM_MPI(&ps->err, MPI_Barrier(ps->comm));
        if (ps->rank == 0) sent = mm_clocksync_global_now(ps->cs);
        MM_MPI(&ps->err, MPI_Bcast(&sent, 1, MPI_INT64_T, 0, ps->comm));
        int64_t got = mm_clocksync_global_now(ps->cs) - sent;
        /* insertion sort as we go: 16 values */
        int i = k;
        while (i > 0 && d[i - 1] > got) {
            d[i] = d[i - 1];
            i--;
        }
        d[i] = got > 0 ? got : 0;
    }
    int64_t mine = d[3 * ROUNDS / 4], worst = 0;
    MM_MPI(&ps->err, MPI_Allreduce(&mine, &worst, 1, MPI_INT64_T, MPI_MAX, ps->comm));
    return worst;
}

/* Sleeps (the CPU goes to others, as when a rank is preempted) until the timer reads deadline. */
static void mm__oversleep_until(const mm_timer *t, int64_t deadline_ns) {
    for (int64_t now = mm_timer_now(t); now < deadline_ns; now = mm_timer_now(t)) {
        int64_t left = deadline_ns - now;
        struct timespec ts = {(time_t)(left / 1000000000), (long)(left % 1000000000)};
        nanosleep(&ts, NULL);
    }
}

int mm_procsync_wait_start(mm_procsync *ps, long seq, int64_t planned_local_ns) {
    ps->planned_start_local_ns = planned_local_ns;
    if (mm_timer_now(ps->timer) > planned_local_ns) return MM_INVALID_LATE_START;
    /* test only: the rank is away when its start comes, as if preempted during the wait */
    if (ps->inject_late_wakeup_ns > 0 && seq % 4 == 3)
        mm__oversleep_until(ps->timer, planned_local_ns + ps->inject_late_wakeup_ns);
    mm_timer_wait_until(ps->timer, planned_local_ns);
    return 0;
}

int mm_procsync_start_after_slack(mm_procsync *ps, long rep, int64_t slack_ns) {
    MM_MPI(&ps->err, MPI_Barrier(ps->comm));
    int64_t start = 0;
    if (ps->rank == 0) start = mm_clocksync_global_now(ps->cs) + slack_ns;
    MM_MPI(&ps->err, MPI_Bcast(&start, 1, MPI_INT64_T, 0, ps->comm));
    if (ps->first_start_global_ns == 0) ps->first_start_global_ns = start;
    return mm_procsync_wait_start(ps, rep, mm_clocksync_to_local(ps->cs, start));
}

int mm_procsync_late_wakeup(const mm_procsync *ps, int64_t start_local_ns) {
    if (!ps->vt->has_planned_start || ps->start_tolerance_ns <= 0) return 0;
    return start_local_ns - ps->planned_start_local_ns > ps->start_tolerance_ns
               ? MM_INVALID_LATE_WAKEUP
               : 0;
}

/* Shared by the schemes that need no work around a repetition. */
int mm_procsync_nothing_before(mm_procsync *ps, long rep) { return 0; }
int mm_procsync_nothing_after(mm_procsync *ps, long rep, int64_t s, int64_t e, int before) {
    return before;
}
void mm_procsync_nothing_end(mm_procsync *ps) {}
int mm_procsync_barrier_begin(mm_procsync *ps, mm_timed_fn call, const void *arg) {
    return MM_MPI(&ps->err, MPI_Barrier(ps->comm));
}
