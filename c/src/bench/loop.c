/* SPDX-License-Identifier: BSD-3-Clause */
/* loop.c — the one measurement loop (Hunold & Carpen-Amarie 2016, Algorithm 1).
 *
 * For every repetition: the process sync prepares (barrier, wait for the window, ...), then
 * two timestamps around the timed call and NOTHING else between them — no allocation, no I/O,
 * no branch on an option. Everything the call needs was prepared by the op's setup; the choice
 * of timed function (plain call, or barrier + call for MS3) is made before the loop. With
 * --nrep auto, rank 0 decides between repetitions whether the test has enough (decide.c,
 * adaptive.c); every rank stops after the same repetition. Between blocks of repetitions (the
 * window's batch length) the loop marks other processes' CPU time (other_cpu.c), outside the
 * timed region. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_counters.h"
#include "mm_runtime.h"
#include "mm_error.h"

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

mm_status mm_rep_buffers_alloc(mm_rep_buffers *b, long cap) {
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
        return MM_E_FAILED;
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

/* One test's loop: what its steps share. Fixed by mm__loop_start but for the sequence number
 * and the counts; the scheme in use is ps->vt (a switch changes it, switch.c). */
typedef struct mm__loop {
    const mm_config *cfg;
    mm_test *t;
    mm_op_args *args;
    mm_procsync *ps;
    mm_rep_buffers *b;
    mm_decide *d;
    const mm_nbc *nbc;
    const mm_procsync_vtable *configured; /* the scheme the test began with */
    const mm_timer *timer;
    mm_timed_fn call; /* plain, barrier + call (MS3) or a batch: chosen before the loop */
    mm__timed timed;
    mm__cold cold;
    mm__after after;
    /* the op's clean-up after each call (a communicator the call created), outside the timed
     * region; chosen before the loop */
    int (*after_call)(mm_op_args *);
    /* per-repetition counters (counters/): read before the process sync's wait and right after
     * the second timestamp, outside the timed region; no-ops when off (NULL) */
    mm_counters *counters;
    char call_name[48]; /* the MPI function a failing call is named by ("MPI_Allreduce") */
    long batch, nrep, warmup;
    long max_redo;     /* the bound on redone repetitions, so that a hopeless test ends */
    int adaptive;      /* --nrep auto: rank 0 judges every `every` recorded repetitions */
    long every;
    mm_stop_rule rule;
    int budget_checked; /* the test's time budget is checked every budget_every repetitions */
    long budget_every;
    long seq;           /* repetitions run so far: warm-up, redone and recorded */
    mm_other_cpu *other_cpu; /* the per-block load (other_cpu.c), or NULL */
    long marked_seq;         /* seq at its last mark */
    mm__loop_counts n;
} mm__loop;

/* The hooks the loop hands the process sync for one test, cleared when the test ends. */
static void mm__hooks_clear(mm_procsync *ps) {
    ps->between_reps = NULL;
    ps->between_arg = NULL;
    ps->after_call = NULL;
    ps->after_call_arg = NULL;
}

/* Before the warm-up: the hooks, the window's switching policy, the process sync's begin_test
 * and the start tolerance. Collective. */
static int mm__test_begin(mm__loop *L) {
    const mm_config *cfg = L->cfg;
    mm_procsync *ps = L->ps;
    /* the overwrite runs after each repetition, before the next one's wait: begin_test's pilot
     * must know it to size a window that leaves room for it */
    ps->between_reps = L->cold.buf ? mm__cold_touch : NULL;
    ps->between_arg = &L->cold;
    ps->after_call = L->after_call ? mm__after_call : NULL;
    ps->after_call_arg = &L->after;
    mm_mpi_error_clear(&ps->err);
    /* the window's own policy (procsync/switch_rule.c): an auto window may give up on a busy
     * machine and the test go on with roundtime, then barrier; each test starts anew with the
     * configured scheme */
    mm_bench_round_trip_alone(ps, L->t, cfg);
    ps->may_switch = strcmp(ps->vt->name, "window") == 0 && cfg->ps.window_us <= 0 &&
                     cfg->ps.switch_late_fraction < 1.0;
    ps->growth_max = cfg->ps.window_growth_max;
    ps->switch_late_fraction = cfg->ps.switch_late_fraction;
    ps->switch_why = NULL;
    ps->switched = 0;
    ps->test_deadline_local_ns = L->t->deadline_local_ns;
    ps->pilot_window_ns = 0;
    int rc = ps->vt->begin_test(ps, L->call, &L->timed);
    /* the late-wakeup tolerance of this test: given, or automatic (mm_config_start_tolerance_ns);
     * on in every mode: when ranks share CPUs, a rank the scheduler did not run at its start is
     * exactly what the check is for (the switch rule then finds a method that holds) */
    ps->start_tolerance_ns = mm_config_start_tolerance_ns(cfg, ps->timer->overhead_ns);
    L->t->start_tolerance_ns = ps->vt->has_planned_start ? ps->start_tolerance_ns : 0;
    return rc;
}

/* Start: the timed function and everything the loop needs, the process sync's begin_test,
 * the rule and the time budget. Collective. 0, or MM_E_FAILED with begin_test's failure in *err. */
static mm_status mm__loop_start(mm__loop *L, const mm_test_run *run, mm_test *t, mm_mpi_error *err) {
    const mm_config *cfg = run->cfg;
    mm_procsync *ps = run->ps;
    *L = (mm__loop){.cfg = cfg, .t = t, .args = run->args, .ps = ps, .b = run->b, .d = run->d,
                    .nbc = run->args->nbc, .configured = ps->vt, .timer = ps->timer,
                    .after_call = t->op->after, .counters = run->b->counters,
                    .other_cpu = run->other_cpu, .n = {.stopped_by = MM_STOP_CONTINUE}};
    L->batch = cfg->measure.batch > 1 ? cfg->measure.batch : 1;
    L->timed = (mm__timed){t->op, run->args, ps->comm, L->batch};
    /* --batch > 1 is refused with loop-barrier (parse_space.c): the barrier is never batched */
    L->call = L->batch > 1                        ? mm__timed_batch_call
              : ps->vt->barrier_in_timed_region ? mm__timed_barrier_call
                                                : mm__timed_call;
    L->cold = (mm__cold){run->cold_cache, run->cold_cache_bytes};
    L->after = (mm__after){t->op, run->args};
    mm_op_call_name(t->op, L->call_name, sizeof L->call_name);
    /* the first block's mark, before begin_test: a window schedule it plans starts after it */
    mm_other_cpu_begin(L->other_cpu);
    mm_other_cpu_mark(L->other_cpu, 0);

    int rc = mm__test_begin(L);
    if (rc != MPI_SUCCESS || mm_mpi_failed(&ps->err)) {
        mm__hooks_clear(ps);
        *err = ps->err;
        mm_mpi_check(err, rc, "begin_test");
        return MM_E_FAILED;
    }
    L->nrep = cfg->nrep < L->b->cap ? cfg->nrep : L->b->cap;
    /* --nrep auto: rank 0 judges the run times every `every` recorded repetitions and at the
     * last one (decide.c); the starts it checks are those the analysis checks */
    L->adaptive = L->d && cfg->adaptive.nrep_rule != MM_NREP_FIXED;
    L->every = cfg->adaptive.nrep_every > 0 ? cfg->adaptive.nrep_every : 1;
    L->rule = mm_decide_rule(cfg, L->timer->resolution_ns);
    if (L->d)
        mm_decide_begin(L->d, L->d->has_global ? t->start_tolerance_ns : 0, mm_timer_now(L->timer),
                        mm_rep_timed_rank((t->op->flags & MM_OP_ROUND_TRIP) != 0, L->args->pair[0]));
    /* a round trip run back to back from its first repetition (switch.c): local run times */
    if (L->d && t->nswitches > 0 && !ps->vt->has_planned_start) L->d->local_from = 0;
    L->warmup = cfg->measure.warmup;
    L->max_redo = 10 * L->nrep + 100;
    /* The test's time budget (t->deadline_local_ns, rank 0's clock) for the schemes without one
     * of their own: rank 0 tells every rank at each batch boundary whether it has passed (one
     * broadcast), then the schedule restarts (resume) as after a decision. */
    L->budget_every = mm_window_batch_length(cfg->measure.warmup, cfg->nrep);
    L->budget_checked = t->deadline_local_ns > 0 || ps->rank != 0;
    MM_MPI(&ps->err, MPI_Allreduce(MPI_IN_PLACE, &L->budget_checked, 1, MPI_INT, MPI_MIN, ps->comm));
    return 0;
}

/* Before a repetition, alike on every rank: the switch the process sync asked for at the end
 * of a batch, and at each batch boundary the test's time budget. 0 to go on; 1 to stop (the
 * budget ended the test, or the switch failed: *mpi_rc). Collective. */
static int mm__loop_boundary(mm__loop *L, int *mpi_rc, mm_mpi_error *err) {
    mm_procsync *ps = L->ps;
    if (ps->switch_why) {
        int rc = mm_bench_switch(ps, L->t, L->call, &L->timed, L->n.recorded, L->seq);
        if (rc != MPI_SUCCESS || mm_mpi_failed(&ps->err)) {
            *err = ps->err;
            *mpi_rc = mm_mpi_check(err, rc, "switching the process sync");
            if (*mpi_rc == MPI_SUCCESS) *mpi_rc = err->code;
            return 1;
        }
        if (L->d && !ps->vt->has_planned_start && L->d->local_from > L->n.recorded)
            L->d->local_from = L->n.recorded;
    }
    const mm_procsync_vtable *vt = ps->vt;
    if (L->seq == 0 || L->seq % L->budget_every != 0) return 0;
    /* a block ends: its load mark first, then the schedule restarts after it (resume) */
    if (L->other_cpu) {
        mm_other_cpu_mark(L->other_cpu, L->n.recorded);
        L->marked_seq = L->seq;
    }
    int budget = L->budget_checked && !vt->budget_exhausted;
    if (budget) {
        int over = ps->rank == 0 && mm_timer_now(L->timer) >= L->t->deadline_local_ns;
        MM_MPI(&ps->err, MPI_Bcast(&over, 1, MPI_INT, 0, ps->comm));
        if (over) {
            L->n.ended_by_budget = 1;
            return 1;
        }
    }
    if ((budget || L->other_cpu) && vt->resume) vt->resume(ps, L->seq);
    return 0;
}

/* What one repetition gave. */
typedef struct mm__rep {
    int64_t start_ns, end_ns;
    int call_rc; /* the timed call's code, or its clean-up's */
    int flags;   /* the process sync's verdict: MM_INVALID_* */
} mm__rep;

/* Time: one repetition under the process sync. Between the two timestamps the timed call and
 * NOTHING else; the counters, the clean-up and the verdict come after the second. */
static mm__rep mm__loop_time(mm__loop *L) {
    mm_procsync *ps = L->ps;
    const mm_procsync_vtable *vt = ps->vt;
    const mm_timer *timer = L->timer;
    const mm_timed_fn call = L->call;
    const mm__timed *timed = &L->timed;
    mm_counters_before(L->counters);
    ps->rep_rewarms = 0;
    const int before = vt->before_rep(ps, L->seq);

    const int64_t start_ns = mm_timer_now(timer);
    int call_rc = call(timed);
    const int64_t end_ns = mm_timer_now(timer);

    mm_counters_after(L->counters, L->n.recorded); /* kept only when this repetition is recorded */
    if (L->after_call && call_rc == MPI_SUCCESS) call_rc = L->after_call(L->args);
    const int flags = vt->after_rep(ps, L->seq, start_ns, end_ns, before);
    L->seq++;
    return (mm__rep){.start_ns = start_ns, .end_ns = end_ns, .call_rc = call_rc, .flags = flags};
}

/* Record: a repetition past the warm-up, invalid under a scheme that redoes those (within the
 * bound), is counted as redone; any other is recorded at the next index. 1 when recorded. */
static int mm__loop_record(mm__loop *L, const mm__rep *r) {
    if (r->flags && L->ps->vt->redoes_invalid && L->n.redone < L->max_redo) {
        L->n.redone++;
        mm__count_reasons(L->n.redone_by_reason, r->flags);
        return 0;
    }
    mm__record(L->b, L->n.recorded, L->ps, L->nbc, L->batch, r->start_ns, r->end_ns, r->flags);
    mm__count_reasons(L->n.invalid_by_reason, r->flags);
    L->n.recorded++;
    return 1;
}

/* Decide (--nrep auto), after a recorded repetition: every `every` of them and at the last,
 * rank 0 judges the run times so far (decide.c) and every rank learns its verdict. 0 to go on
 * (the schedule resumed: the collectives paused it); 1 to stop (the rule's verdict, or MPI
 * failed: *mpi_rc). Collective. */
static int mm__loop_decide(mm__loop *L, int *mpi_rc, mm_mpi_error *err) {
    const long recorded = L->n.recorded;
    if (!L->adaptive || (recorded % L->every != 0 && recorded != L->nrep)) return 0;
    double reached = NAN;
    if (mm_decide_collect(L->d, L->b, recorded, err) != MPI_SUCCESS ||
        mm_decide_stop(L->d, &L->rule, recorded, mm_timer_now(L->timer), &L->n.stopped_by,
                       &reached, err) != MPI_SUCCESS) {
        *mpi_rc = err->code;
        return 1;
    }
    L->n.decisions++;
    if (L->n.stopped_by != MM_STOP_CONTINUE) return 1;
    if (L->ps->vt->resume) L->ps->vt->resume(L->ps, L->seq);
    return 0;
}

/* After the loop: the scheme back to the configured one, the rule's verdict, and the test's
 * counts (per-reason counts summed over ranks at rank 0). Collective. */
static int mm__loop_end(const mm__loop *L, int mpi_rc, mm_mpi_error *err) {
    const mm_config *cfg = L->cfg;
    mm_test *t = L->t;
    mm_procsync *ps = L->ps;
    const mm__loop_counts *n = &L->n;
    if (L->other_cpu && L->seq > L->marked_seq) mm_other_cpu_mark(L->other_cpu, n->recorded);
    ps->vt->end_test(ps);
    if (ps->vt != L->configured) { /* the next test starts with the configured scheme */
        free(ps->state);
        ps->state = NULL;
        ps->vt = L->configured;
    }
    ps->may_switch = 0;
    ps->switch_why = NULL;
    mm__hooks_clear(ps);
    if (L->d) {
        /* the rest of the run times (all of them without --nrep auto: --sizes auto refines on
         * the median); not after a failure, which may have left the ranks apart */
        if (mpi_rc == MPI_SUCCESS && mm_decide_collect(L->d, L->b, n->recorded, err) != MPI_SUCCESS)
            mpi_rc = err->code;
        t->median_ns = mm_decide_median(L->d);
        t->nrep_rule = L->adaptive ? cfg->adaptive.nrep_rule : MM_NREP_FIXED;
        t->decisions = n->decisions;
        t->valid_used = L->d->nvalid;
        t->precision_reached = L->adaptive ? mm_decide_precision(L->d, &L->rule) : NAN;
        t->stopped_by = !L->adaptive || mpi_rc != MPI_SUCCESS ? MM_STOP_CONTINUE
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
    if (L->other_cpu) mm_other_cpu_finish(L->other_cpu, ps->comm, L->budget_every, t, err);
    return mpi_rc != MPI_SUCCESS ? mpi_rc : err->code;
}

/* The loop, cut at the repetition: start; then per repetition the boundary's agreements, the
 * timed region, and past the warm-up the record and the decision; end. */
int mm_bench_run_test(const mm_test_run *run, mm_test *t, mm_mpi_error *err) {
    mm__loop L;
    if (mm__loop_start(&L, run, t, err) != 0) return err->code;
    mm_procsync *ps = L.ps;
    int mpi_rc = MPI_SUCCESS;
    while (L.n.recorded < L.nrep) {
        if (mm__loop_boundary(&L, &mpi_rc, err)) break;
        const mm__rep rep = mm__loop_time(&L);
        if (rep.call_rc != MPI_SUCCESS || mm_mpi_failed(&ps->err)) {
            /* the call's own error first: it is what the test measured */
            mpi_rc = mm_mpi_check(err, rep.call_rc, L.call_name);
            if (mpi_rc == MPI_SUCCESS) {
                *err = ps->err;
                mpi_rc = err->code;
            }
            break;
        }
        if (ps->between_reps) ps->between_reps(ps->between_arg);
        if (L.seq <= L.warmup || ps->rep_rewarms) continue; /* rewarms: after a pause (mm_procsync.h) */
        if (mm__loop_record(&L, &rep) && mm__loop_decide(&L, &mpi_rc, err)) break;
        /* the same answer on every rank, and `recorded` is the same everywhere */
        if (L.n.recorded < L.nrep && ps->vt->budget_exhausted && ps->vt->budget_exhausted(ps)) {
            L.n.ended_by_budget = 1;
            break;
        }
    }
    return mm__loop_end(&L, mpi_rc, err);
}
