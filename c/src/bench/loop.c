/* SPDX-License-Identifier: BSD-3-Clause */
/* loop.c — the one measurement loop (Hunold & Carpen-Amarie 2016, Algorithm 1).
 *
 * For every repetition: the process sync prepares (barrier, wait for the window, ...), then
 * two timestamps around the timed call and NOTHING else between them — no allocation, no I/O,
 * no branch on an option. Everything the call needs was prepared by the op's setup; the choice
 * of timed function (plain call, or barrier + call for MS3) is made before the loop. With
 * --nrep auto, rank 0 decides between repetitions whether the test has enough (decide.c,
 * adaptive.c); every rank stops after the same repetition. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_counters.h"

typedef struct mm__timed {
    const mm_op *op;
    const mm_op_args *args;
    MPI_Comm comm;
    long batch; /* --batch: calls per timed repetition */
} mm__timed;

/* The op's clean-up after a call, for a pilot outside the loop (mm_procsync.after_call). */
typedef struct mm__after {
    const mm_op *op;
    mm_op_args *args;
} mm__after;

static int mm__after_call(void *arg) {
    mm__after *x = arg;
    return x->op->after(x->args);
}

static int mm__timed_call(const void *arg) {
    const mm__timed *t = arg;
    return t->op->run(t->args);
}

/* MS3 (Phloem): the barrier is part of what is timed. */
static int mm__timed_barrier_call(const void *arg) {
    const mm__timed *t = arg;
    int rc = MPI_Barrier(t->comm); /* checked by the loop, as the call's code, after the timestamp */
    return rc != MPI_SUCCESS ? rc : t->op->run(t->args);
}

/* MS2 as IMB runs it (--batch N): N calls back to back between the two timestamps; the loop
 * counter is the only thing timed besides the calls, as in IMB's own loop. A failing call ends
 * the batch with its code. */
static int mm__timed_batch_call(const void *arg) {
    const mm__timed *t = arg;
    int rc = MPI_SUCCESS;
    for (long i = 0; i < t->batch && rc == MPI_SUCCESS; i++) rc = t->op->run(t->args);
    return rc;
}

/* What the loop counts over a test's repetitions. */
typedef struct mm__loop_counts {
    long recorded, redone, decisions;
    long invalid_by_reason[MM_INVALID_NREASONS], redone_by_reason[MM_INVALID_NREASONS];
    int stopped_by, ended_by_budget;
} mm__loop_counts;

/* The cold-cache overwrite, as the process sync's between-repetitions hook. */
typedef struct mm__cold {
    void *buf;
    size_t bytes;
} mm__cold;

static void mm__cold_touch(const void *arg) {
    const mm__cold *c = arg;
    mm_cold_cache_touch(c->buf, c->bytes);
}

int mm_rep_buffers_alloc(mm_rep_buffers *b, long cap) {
    memset(b, 0, sizeof *b);
    b->cap = cap;
    b->start_ns = malloc((size_t)cap * sizeof(int64_t));
    b->end_ns = malloc((size_t)cap * sizeof(int64_t));
    b->gstart_ns = malloc((size_t)cap * sizeof(int64_t));
    b->gend_ns = malloc((size_t)cap * sizeof(int64_t));
    b->invalid = malloc((size_t)cap * sizeof(int32_t));
    int64_t **components[] = {&b->init_ns, &b->test_ns, &b->wait_ns, &b->compute_ns,
                              &b->blocking_ns};
    int missing = 0;
    for (size_t i = 0; i < sizeof components / sizeof components[0]; i++) {
        *components[i] = malloc((size_t)cap * sizeof(int64_t));
        missing |= *components[i] == NULL;
    }
    b->blocking_flags = malloc((size_t)cap * sizeof(int32_t));
    if (!b->start_ns || !b->end_ns || !b->gstart_ns || !b->gend_ns || !b->invalid || missing ||
        !b->blocking_flags) {
        mm_rep_buffers_free(b);
        return -1;
    }
    return 0;
}

void mm_rep_buffers_free(mm_rep_buffers *b) {
    free(b->start_ns);
    free(b->end_ns);
    free(b->gstart_ns);
    free(b->gend_ns);
    free(b->invalid);
    free(b->init_ns);
    free(b->test_ns);
    free(b->wait_ns);
    free(b->compute_ns);
    free(b->blocking_ns);
    free(b->blocking_flags);
    memset(b, 0, sizeof *b);
}

int mm_invalid_reason_index(int flag) {
    switch (flag) {
    case MM_INVALID_LATE_START: return 0;
    case MM_INVALID_OVERRUN: return 1;
    case MM_INVALID_ROUND_LATE: return 2;
    case MM_INVALID_LATE_WAKEUP: return 3;
    default: return -1;
    }
}

static const int mm__reason_flags[MM_INVALID_NREASONS] = {
    MM_INVALID_LATE_START, MM_INVALID_OVERRUN, MM_INVALID_ROUND_LATE, MM_INVALID_LATE_WAKEUP};

static void mm__count_reasons(long *counts, int flags) {
    for (int r = 0; r < MM_INVALID_NREASONS; r++) counts[r] += (flags & mm__reason_flags[r]) != 0;
}

/* A nonblocking collective's repetition, from the instants its timed call left (ops_nbc.c):
 * in the blocking phase the whole call is the blocking time; in the overlap phase init = start
 * to the I-call's return, wait = MPI_Wait entered to end, compute = the rest minus the tests. */
static void mm__record_components(mm_rep_buffers *b, long i, const mm_nbc *nbc, int64_t start_ns,
                                  int64_t end_ns, int flags) {
    if (nbc->phase == MM_NBC_BLOCKING) {
        b->blocking_ns[i] = end_ns - start_ns;
        b->blocking_flags[i] = flags;
        return;
    }
    b->init_ns[i] = nbc->posted_ns - start_ns;
    b->test_ns[i] = nbc->test_ns;
    b->wait_ns[i] = end_ns - nbc->wait_entered_ns;
    b->compute_ns[i] = nbc->wait_entered_ns - nbc->posted_ns - nbc->test_ns;
}

/* The hooks the loop hands the process sync for one test, cleared when the test ends. */
static void mm__hooks_clear(mm_procsync *ps) {
    ps->between_reps = NULL;
    ps->between_arg = NULL;
    ps->after_call = NULL;
    ps->after_call_arg = NULL;
}

/* Before the warm-up: the hooks, the window's switching policy, the process sync's begin_test
 * and the start tolerance. Collective. */
static int mm__test_begin(const mm_config *cfg, mm_test *t, mm_procsync *ps, mm_timed_fn call,
                          mm__timed *timed, mm__cold *cold, mm__after *after) {
    /* the overwrite runs after each repetition, before the next one's wait: begin_test's pilot
     * must know it to size a window that leaves room for it */
    ps->between_reps = cold->buf ? mm__cold_touch : NULL;
    ps->between_arg = cold;
    ps->after_call = t->op->after ? mm__after_call : NULL;
    ps->after_call_arg = after;
    mm_mpi_error_clear(&ps->err);
    /* the window's own policy (procsync/switch_rule.c): an auto window may give up on a busy
     * machine and the test go on with roundtime, then barrier; each test starts anew with the
     * configured scheme */
    ps->may_switch = strcmp(ps->vt->name, "window") == 0 && cfg->ps.window_us <= 0 &&
                     cfg->ps.switch_late_fraction < 1.0;
    ps->growth_max = cfg->ps.window_growth_max;
    ps->switch_late_fraction = cfg->ps.switch_late_fraction;
    ps->switch_why = NULL;
    ps->switched = 0;
    ps->test_deadline_local_ns = t->deadline_local_ns;
    ps->pilot_window_ns = 0;
    int rc = ps->vt->begin_test(ps, call, timed);
    /* the late-wakeup tolerance of this test: given, or automatic (mm_config_start_tolerance_ns);
     * on in every mode: when ranks share CPUs, a rank the scheduler did not run at its start is
     * exactly what the check is for (the switch rule then finds a method that holds) */
    ps->start_tolerance_ns = mm_config_start_tolerance_ns(cfg, ps->timer->overhead_ns);
    t->start_tolerance_ns = ps->vt->has_planned_start ? ps->start_tolerance_ns : 0;
    return rc;
}

/* One recorded repetition into the buffers, at index i. */
static void mm__record(mm_rep_buffers *b, long i, const mm_procsync *ps, const mm_nbc *nbc,
                       long batch, int64_t start_ns, int64_t end_ns, int flags) {
    /* --batch N: the row holds one call's share, end = start + (end - start) / N rounded
     * (docs/FORMAT.md, "--batch"); N = 1: the call itself */
    const int64_t rec_end_ns =
        batch > 1 ? start_ns + (end_ns - start_ns + batch / 2) / batch : end_ns;
    b->start_ns[i] = start_ns;
    b->end_ns[i] = rec_end_ns;
    /* the online global clock as it is now (harmonize may re-sync between repetitions) */
    b->gstart_ns[i] = mm_clocksync_to_global(ps->cs, start_ns);
    b->gend_ns[i] = mm_clocksync_to_global(ps->cs, rec_end_ns);
    b->invalid[i] = flags;
    if (nbc) mm__record_components(b, i, nbc, start_ns, end_ns, flags);
}

/* After the loop: the scheme back to the configured one, the rule's verdict, and the test's
 * counts (per-reason counts summed over ranks at rank 0). Collective. */
static int mm__test_end(const mm_config *cfg, mm_test *t, mm_procsync *ps,
                        const mm_procsync_vtable *configured, mm_rep_buffers *b, mm_decide *d,
                        const mm__loop_counts *n, int mpi_rc, mm_mpi_error *err) {
    ps->vt->end_test(ps);
    if (ps->vt != configured) { /* the next test starts with the configured scheme */
        free(ps->state);
        ps->state = NULL;
        ps->vt = configured;
    }
    ps->may_switch = 0;
    ps->switch_why = NULL;
    mm__hooks_clear(ps);
    const int adaptive = d && cfg->adaptive.nrep_rule != MM_NREP_FIXED;
    if (d) {
        /* the rest of the run times (all of them without --nrep auto: --sizes auto refines on
         * the median); not after a failure, which may have left the ranks apart */
        if (mpi_rc == MPI_SUCCESS && mm_decide_collect(d, b, n->recorded, err) != MPI_SUCCESS)
            mpi_rc = err->code;
        t->median_ns = mm_decide_median(d);
        t->nrep_rule = adaptive ? cfg->adaptive.nrep_rule : MM_NREP_FIXED;
        t->decisions = n->decisions;
        t->valid_used = d->nvalid;
        const mm_stop_rule rule = mm_decide_rule(cfg, ps->timer->resolution_ns);
        t->precision_reached = adaptive ? mm_decide_precision(d, &rule) : NAN;
        t->stopped_by = !adaptive || mpi_rc != MPI_SUCCESS ? MM_STOP_CONTINUE
                        : n->stopped_by != MM_STOP_CONTINUE ? n->stopped_by
                        : n->ended_by_budget ? MM_STOP_BUDGET /* the process sync's time budget */
                                             : MM_STOP_MAX;
    }
    t->nrep = n->recorded;
    t->nrep_asked = cfg->nrep;
    t->ended_by_budget = n->ended_by_budget;
    t->redone = n->redone;
    t->window_ns = ps->window_ns;
    t->pilot_window_ns = ps->pilot_window_ns;
    t->resyncs = ps->nresyncs;
    /* per-reason counts are rank-repetitions, summed over ranks (rank 0 receives them), for the
     * recorded repetitions and for the redone ones alike */
    long mine[2 * MM_INVALID_NREASONS], sums[2 * MM_INVALID_NREASONS] = {0};
    for (int r = 0; r < MM_INVALID_NREASONS; r++) {
        mine[r] = n->invalid_by_reason[r];
        mine[MM_INVALID_NREASONS + r] = n->redone_by_reason[r];
    }
    MM_MPI(err, MPI_Reduce(mine, sums, 2 * MM_INVALID_NREASONS, MPI_LONG, MPI_SUM, 0, ps->comm));
    for (int r = 0; r < MM_INVALID_NREASONS; r++) {
        t->invalid_by_reason[r] = sums[r];
        t->redone_by_reason[r] = sums[MM_INVALID_NREASONS + r];
    }
    return mpi_rc != MPI_SUCCESS ? mpi_rc : err->code;
}

int mm_bench_run_test(const mm_config *cfg, mm_test *t, mm_op_args *args, mm_procsync *ps,
                      mm_rep_buffers *b, mm_decide *d, void *cold_cache, size_t cold_cache_bytes,
                      mm_mpi_error *err) {
    const mm_procsync_vtable *const configured = ps->vt;
    const mm_procsync_vtable *vt = configured;
    const mm_timer *timer = ps->timer;
    const long batch = cfg->measure.batch > 1 ? cfg->measure.batch : 1;
    mm__timed timed = {t->op, args, ps->comm, batch};
    /* --batch > 1 is refused with loop-barrier (parse_space.c): the barrier is never batched */
    mm_timed_fn call = batch > 1                     ? mm__timed_batch_call
                       : vt->barrier_in_timed_region ? mm__timed_barrier_call
                                                     : mm__timed_call;
    mm__cold cold = {cold_cache, cold_cache_bytes};
    mm__after after = {t->op, args};
    /* the MPI function a failing call is named by ("MPI_Allreduce"), derived before the loop */
    char call_name[48];
    mm_op_call_name(t->op, call_name, sizeof call_name);

    int rc = mm__test_begin(cfg, t, ps, call, &timed, &cold, &after);
    if (rc != MPI_SUCCESS || mm_mpi_failed(&ps->err)) {
        mm__hooks_clear(ps);
        *err = ps->err;
        mm_mpi_check(err, rc, "begin_test");
        return err->code;
    }

    const mm_nbc *nbc = args->nbc;
    const long nrep = cfg->nrep < b->cap ? cfg->nrep : b->cap;
    /* --nrep auto: rank 0 judges the run times every `every` recorded repetitions and at the
     * last one (decide.c); the starts it checks are those the analysis checks */
    const int adaptive = d && cfg->adaptive.nrep_rule != MM_NREP_FIXED;
    const long every = cfg->adaptive.nrep_every > 0 ? cfg->adaptive.nrep_every : 1;
    const mm_stop_rule rule = mm_decide_rule(cfg, timer->resolution_ns);
    mm__loop_counts n = {.stopped_by = MM_STOP_CONTINUE};
    if (d) mm_decide_begin(d, d->has_global ? t->start_tolerance_ns : 0, mm_timer_now(timer));
    const long warmup = cfg->measure.warmup;
    /* Schemes that redo invalid repetitions get a bound, so that a hopeless test ends. */
    const long max_redo = 10 * nrep + 100;
    /* The test's time budget (t->deadline_local_ns, rank 0's clock) for the schemes without one
     * of their own: rank 0 tells every rank at each batch boundary whether it has passed (one
     * broadcast), then the schedule restarts (resume) as after a decision. */
    const long budget_every = mm_window_batch_length(cfg->measure.warmup, cfg->nrep);
    int budget_checked = t->deadline_local_ns > 0 || ps->rank != 0;
    MM_MPI(&ps->err, MPI_Allreduce(MPI_IN_PLACE, &budget_checked, 1, MPI_INT, MPI_MIN, ps->comm));
    long seq = 0;
    int mpi_rc = MPI_SUCCESS;

    /* the op's clean-up after each call (a communicator the call created), outside the timed
     * region; chosen before the loop */
    int (*const after_call)(mm_op_args *) = t->op->after;
    /* per-repetition counters (counters/): read before the process sync's wait and right after
     * the second timestamp, outside the timed region; no-ops when off (NULL) */
    mm_counters *const counters = b->counters;

    while (n.recorded < nrep) {
        if (ps->switch_why) { /* asked at the end of a batch, alike on every rank */
            rc = mm_bench_switch(ps, t, call, &timed, n.recorded, seq);
            vt = ps->vt;
            if (rc != MPI_SUCCESS || mm_mpi_failed(&ps->err)) {
                *err = ps->err;
                mpi_rc = mm_mpi_check(err, rc, "switching the process sync");
                if (mpi_rc == MPI_SUCCESS) mpi_rc = err->code;
                break;
            }
        }
        if (budget_checked && !vt->budget_exhausted && seq > 0 && seq % budget_every == 0) {
            int over = ps->rank == 0 && mm_timer_now(timer) >= t->deadline_local_ns;
            MM_MPI(&ps->err, MPI_Bcast(&over, 1, MPI_INT, 0, ps->comm));
            if (over) {
                n.ended_by_budget = 1;
                break;
            }
            if (vt->resume) vt->resume(ps, seq);
        }
        mm_counters_before(counters);
        ps->rep_rewarms = 0;
        int before = vt->before_rep(ps, seq);
        int64_t start_ns = mm_timer_now(timer);
        int call_rc = call(&timed);
        int64_t end_ns = mm_timer_now(timer);
        mm_counters_after(counters, n.recorded); /* kept only when this repetition is recorded */
        if (after_call && call_rc == MPI_SUCCESS) call_rc = after_call(args);
        int flags = vt->after_rep(ps, seq, start_ns, end_ns, before);
        seq++;
        if (call_rc != MPI_SUCCESS || mm_mpi_failed(&ps->err)) {
            /* the call's own error first: it is what the test measured */
            mpi_rc = mm_mpi_check(err, call_rc, call_name);
            if (mpi_rc == MPI_SUCCESS) {
                *err = ps->err;
                mpi_rc = err->code;
            }
            break;
        }
        if (ps->between_reps) ps->between_reps(ps->between_arg);
        if (seq <= warmup || ps->rep_rewarms) continue; /* rewarms: after a pause (mm_procsync.h) */
        if (flags && vt->redoes_invalid && n.redone < max_redo) {
            n.redone++;
            mm__count_reasons(n.redone_by_reason, flags);
        } else {
            mm__record(b, n.recorded, ps, nbc, batch, start_ns, end_ns, flags);
            mm__count_reasons(n.invalid_by_reason, flags);
            n.recorded++;
            if (adaptive && (n.recorded % every == 0 || n.recorded == nrep)) {
                double reached = NAN;
                if (mm_decide_collect(d, b, n.recorded, err) != MPI_SUCCESS ||
                    mm_decide_stop(d, &rule, n.recorded, mm_timer_now(timer), &n.stopped_by,
                                   &reached, err) != MPI_SUCCESS) {
                    mpi_rc = err->code;
                    break;
                }
                n.decisions++;
                if (n.stopped_by != MM_STOP_CONTINUE) break;
                if (vt->resume) vt->resume(ps, seq); /* the collectives above paused the schedule */
            }
        }
        /* the same answer on every rank, and `recorded` is the same everywhere */
        if (n.recorded < nrep && vt->budget_exhausted && vt->budget_exhausted(ps)) {
            n.ended_by_budget = 1;
            break;
        }
    }
    return mm__test_end(cfg, t, ps, configured, b, d, &n, mpi_rc, err);
}
