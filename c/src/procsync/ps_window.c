/* SPDX-License-Identifier: BSD-3-Clause */
/* ps_window.c — MS4, window-based process synchronization (SKaMPI, Reussner et al. 1998;
 * NBCBench, Hoefler et al. 2010 §1.2; Hunold & Carpen-Amarie 2016 §3.2.1).
 *
 * Rank 0 picks a start time in the future on the global clock and a window size; repetition k
 * of a batch starts at first + k * window on every rank (busy-waiting on its own clock converted
 * with its clock model). A rank that reaches a window start after it has passed marks the
 * repetition LATE_START; a rank that was waiting in time but whose first timestamp comes later
 * than the start plus the start tolerance (it was preempted during the wait, or woke late) marks
 * it LATE_WAKEUP — checked after the call, outside the timed region, because a wait that began in
 * time proves nothing about when the rank actually started; a call that ends after the next
 * window start marks it OVERRUN. All are recorded as valid = 0, never silently kept.
 *
 * Window size: --window-us, or derived from a pilot (max over ranks of the median duration of
 * 15 barrier-synchronized calls) plus a fixed idle time (mm_window_auto_ns): what a call costs
 * depends on how long the ranks waited outside MPI before it (measured: an 8 B allreduce 0.35 us
 * after 10 us, 1.3 us after 50 us; docs/ALGORITHMS.md), so the idle time is held constant
 * rather than scaled with a noisy pilot. What the loop does between two
 * repetitions outside the timed region (ps->between_reps: the --cold-cache overwrite) also
 * has to fit between two window starts: the pilot runs it after each call and adds its longest
 * time to the median call before doubling. A window given with --window-us is kept as given,
 * but the work is timed a few times and ps->between_reps_over_window_ns set when it does not
 * fit (the launch warns: the invalid repetitions need a reason). As SKaMPI does, the window adapts:
 * after every batch of repetitions (32, or a quarter of a short test's warm-up and repetitions,
 * at least 8: a test of 30 repetitions adapts too) the ranks agree (one allreduce) on the largest
 * number of repetitions any rank saw that a longer window would have saved (overrun, late start;
 * a late wake-up is preemption during the wait, as likely in a longer window); above a quarter of
 * the batch the window doubles (auto mode only). Unlike SKaMPI it also comes back: after a batch with no invalid repetition it halves,
 * never below the pilot's window, so that a burst of load from elsewhere does not leave the
 * rest of the test on a window thousands of times too long (seen: 9 us grown to 38 ms, a
 * launch of 1 s taking a minute). It never grows beyond --window-growth-max times the pilot's
 * window: past that the machine is too busy for windows. There, or after two batches in a row
 * whose late fraction (late_start, late_wakeup) passed --switch-late-fraction, the test asks to
 * go on with roundtime (switch_rule.c; the loop switches and records it). Each batch is started
 * anew from a fresh start time (one broadcast), which also keeps the schedule short against clock
 * drift; its first repetition follows that pause of 50 us or more and is run but not recorded
 * (ps->rep_rewarms), like a warm-up one. When the loop pauses between repetitions for a decision
 * of --nrep auto (bench/decide.c), the batch ends there (`resume`): the next one starts after the
 * pause instead of leaving its first windows behind it.
 * Cost per batch: 1 allreduce + 1 broadcast, outside every window. */
#include <stdlib.h>

#include "mm_procsync.h"

enum { MM__PILOT_WARM = 3, MM__PILOT_RUNS = 15 };
#define MM__MIN_WINDOW_NS 10000
#define MM__IDLE_NS 10000

typedef struct mm__window_state {
    int64_t window_ns;
    int64_t batch_start_global_ns;
    long batch_first_seq;
    long batch_too_short; /* invalid ones a longer window would have saved (overrun, late_start) */
    long batch_late;  /* ... of which started late (late_start, late_wakeup) */
    int late_before;  /* the batch before had a late fraction above the switch threshold */
    int64_t start_delay_ns;
    int adaptive;
    int64_t pilot_window_ns; /* where adaptation starts, and the floor it halves back to */
    long batch;              /* repetitions per batch (mm_window_batch_length) */
} mm__window_state;

long mm_window_batch_length(long warmup, long nrep) {
    long batch = (warmup + nrep) / 4;
    return batch < 8 ? 8 : batch > 32 ? 32 : batch;
}


/* What a repetition costs between two window starts, from a few barrier-synchronized runs (not
 * measurements: nothing here is recorded): the median duration of the call, plus the longest of
 * the work the loop does after it (a cache overwrite's time varies with what the other ranks
 * write at the same time: the median would leave the slower half late); max over ranks. */
static int64_t mm__pilot_ns(mm_procsync *ps, mm_timed_fn call, const void *arg) {
    int64_t d[MM__PILOT_RUNS], after_max = 0;
    for (int i = 0; i < MM__PILOT_WARM + MM__PILOT_RUNS; i++) {
        MM_MPI(&ps->err, MPI_Barrier(ps->comm));
        int64_t s = mm_timer_now(ps->timer);
        call(arg);
        int64_t e = mm_timer_now(ps->timer);
        if (ps->after_call) ps->after_call(ps->after_call_arg);
        int64_t after = 0;
        if (ps->between_reps) ps->between_reps(ps->between_arg);
        if (ps->after_call || ps->between_reps) after = mm_timer_now(ps->timer) - e;
        if (i < MM__PILOT_WARM) continue;
        d[i - MM__PILOT_WARM] = e - s;
        if (after > after_max) after_max = after;
    }
    qsort(d, MM__PILOT_RUNS, sizeof d[0], mm_cmp_i64);
    int64_t mine = d[MM__PILOT_RUNS / 2] + after_max, worst = 0;
    MM_MPI(&ps->err, MPI_Allreduce(&mine, &worst, 1, MPI_INT64_T, MPI_MAX, ps->comm));
    return worst;
}

/* The longest of a few runs of what the loop does between repetitions, all ranks at once (as in
 * the loop: ranks overwriting together share the memory bandwidth), max over ranks; 0 when the
 * loop does nothing there. Not a measurement: nothing here is recorded. Collective. */
static int64_t mm__between_reps_ns(mm_procsync *ps) {
    enum { WARM = 1, RUNS = 3 }; /* the first run may fault the pages in: the warm-up's share */
    if (!ps->between_reps) return 0; /* set alike on every rank: all return here or none */
    int64_t longest = 0, worst = 0;
    for (int i = 0; i < WARM + RUNS; i++) {
        MM_MPI(&ps->err, MPI_Barrier(ps->comm));
        int64_t s = mm_timer_now(ps->timer);
        ps->between_reps(ps->between_arg);
        int64_t took = mm_timer_now(ps->timer) - s;
        if (i >= WARM && took > longest) longest = took;
    }
    MM_MPI(&ps->err, MPI_Allreduce(&longest, &worst, 1, MPI_INT64_T, MPI_MAX, ps->comm));
    return worst;
}

/* Rank 0 picks the next batch's start far enough ahead that the broadcast arrives first. */
static void mm__start_batch(mm_procsync *ps, mm__window_state *st, long seq) {
    int64_t start = 0;
    if (ps->rank == 0) {
        int64_t margin = 4 * st->start_delay_ns + 50000;
        start = mm_clocksync_global_now(ps->cs) + margin;
    }
    MM_MPI(&ps->err, MPI_Bcast(&start, 1, MPI_INT64_T, 0, ps->comm));
    st->batch_start_global_ns = start;
    st->batch_first_seq = seq;
    st->batch_too_short = 0;
    st->batch_late = 0;
    if (ps->first_start_global_ns == 0) ps->first_start_global_ns = start;
}

static int mm__window_begin(mm_procsync *ps, mm_timed_fn call, const void *arg) {
    mm__window_state *st = ps->state;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st) return MPI_ERR_NO_MEM;
        ps->state = st;
    }
    st->start_delay_ns = mm_procsync_start_delay_ns(ps);
    ps->between_reps_over_window_ns = 0;
    if (ps->cfg->ps.window_us > 0) {
        st->window_ns = (int64_t)(ps->cfg->ps.window_us * 1000.0 + 0.5);
        st->adaptive = 0;
        int64_t between = mm__between_reps_ns(ps);
        if (between > st->window_ns) ps->between_reps_over_window_ns = between;
    } else {
        st->window_ns = mm_window_auto_ns(mm__pilot_ns(ps, call, arg));
        st->pilot_window_ns = st->window_ns;
        ps->pilot_window_ns = st->pilot_window_ns;
        st->adaptive = 1;
    }
    st->late_before = 0;
    ps->window_ns = st->window_ns;
    ps->first_start_global_ns = 0;
    st->batch = mm_window_batch_length(ps->cfg->measure.warmup, ps->cfg->nrep);
    mm__start_batch(ps, st, 0);
    return MPI_SUCCESS;
}

int64_t mm_window_auto_ns(int64_t pilot_ns) {
    int64_t idle = pilot_ns / 2 > MM__IDLE_NS ? pilot_ns / 2 : MM__IDLE_NS;
    int64_t window = pilot_ns + idle;
    return window > MM__MIN_WINDOW_NS ? window : MM__MIN_WINDOW_NS;
}

int64_t mm_window_adapt_ns(int64_t window_ns, int64_t pilot_window_ns, long worst_too_short,
                           long batch, int growth_max) {
    if (worst_too_short > batch / 4 && 2 * window_ns <= (int64_t)growth_max * pilot_window_ns)
        return 2 * window_ns;
    if (worst_too_short == 0 && window_ns / 2 >= pilot_window_ns) return window_ns / 2;
    return window_ns;
}

/* The end of a batch (full, or cut short by the loop's pause): the ranks agree on the worst
 * counts of repetitions a longer window would have saved and of late ones, the window adapts to
 * the first over the repetitions the batch had, and the next batch starts at seq from a fresh
 * start time. */
static void mm__end_batch(mm_procsync *ps, mm__window_state *st, long seq) {
    long mine[2] = {st->batch_too_short, st->batch_late}, worst[2] = {0, 0};
    long had = seq - st->batch_first_seq;
    MM_MPI(&ps->err, MPI_Allreduce(mine, worst, 2, MPI_LONG, MPI_MAX, ps->comm));
    if (st->adaptive && had > 0) {
        /* at its cap: the window could not double after this batch */
        int at_cap = 2 * st->window_ns > (int64_t)ps->growth_max * st->pilot_window_ns;
        const char *why = mm_switch_why(worst[1], had, ps->switch_late_fraction, at_cap,
                                        st->late_before);
        st->late_before = (double)worst[1] > ps->switch_late_fraction * (double)had;
        if (why && ps->may_switch) {
            ps->switch_why = why;
            ps->switch_late_fraction_seen = (double)worst[1] / (double)had;
        }
        st->window_ns =
            mm_window_adapt_ns(st->window_ns, st->pilot_window_ns, worst[0], had, ps->growth_max);
        if (st->window_ns > ps->window_ns) ps->window_ns = st->window_ns;
    }
    mm__start_batch(ps, st, seq);
}

/* A pause of the loop (a decision of --nrep auto) would make the next window start late: the
 * batch ends there and a new one starts after the pause. */
static void mm__window_resume(mm_procsync *ps, long seq) { mm__end_batch(ps, ps->state, seq); }

static int mm__window_before(mm_procsync *ps, long seq) {
    mm__window_state *st = ps->state;
    if (seq - st->batch_first_seq == st->batch) mm__end_batch(ps, st, seq);
    ps->rep_rewarms = seq == st->batch_first_seq;
    int64_t window_start = st->batch_start_global_ns + (seq - st->batch_first_seq) * st->window_ns;
    return mm_procsync_wait_start(ps, seq, mm_clocksync_to_local(ps->cs, window_start));
}

static int mm__window_after(mm_procsync *ps, long seq, int64_t start_local_ns,
                            int64_t end_local_ns, int before_flags) {
    mm__window_state *st = ps->state;
    int64_t next_start =
        st->batch_start_global_ns + (seq - st->batch_first_seq + 1) * st->window_ns;
    int flags = before_flags | mm_procsync_late_wakeup(ps, start_local_ns);
    if (mm_clocksync_to_global(ps->cs, end_local_ns) > next_start) flags |= MM_INVALID_OVERRUN;
    st->batch_too_short += (flags & (MM_INVALID_LATE_START | MM_INVALID_OVERRUN)) != 0;
    st->batch_late += (flags & (MM_INVALID_LATE_START | MM_INVALID_LATE_WAKEUP)) != 0;
    return flags;
}

const mm_procsync_vtable mm_procsync_window = {
    .name = "window",
    .scheme = "MS4",
    .needs_global_clock = 1,
    .redoes_invalid = 0,
    .barrier_in_timed_region = 0,
    .has_planned_start = 1,
    .begin_test = mm__window_begin,
    .before_rep = mm__window_before,
    .after_rep = mm__window_after,
    .end_test = mm_procsync_nothing_end,
    .budget_exhausted = NULL,
    .resume = mm__window_resume,
};
