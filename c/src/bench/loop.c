/* loop.c — the one measurement loop (Hunold & Carpen-Amarie 2016, Algorithm 1).
 *
 * For every repetition: the process sync prepares (barrier, wait for the window, ...), then
 * two timestamps around the timed call and NOTHING else between them — no allocation, no I/O,
 * no branch on an option. Everything the call needs was prepared by the op's setup; the choice
 * of timed function (plain call, or barrier + call for MS3) is made before the loop. */
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"

typedef struct mm__timed {
    const mm_op *op;
    const mm_op_args *args;
    MPI_Comm comm;
} mm__timed;

static int mm__timed_call(const void *arg) {
    const mm__timed *t = arg;
    return t->op->run(t->args);
}

/* MS3 (Phloem): the barrier is part of what is timed. */
static int mm__timed_barrier_call(const void *arg) {
    const mm__timed *t = arg;
    MPI_Barrier(t->comm);
    return t->op->run(t->args);
}

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
    if (!b->start_ns || !b->end_ns || !b->gstart_ns || !b->gend_ns || !b->invalid) {
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
    memset(b, 0, sizeof *b);
}

int mm_bench_run_test(const mm_config *cfg, mm_test *t, mm_op_args *args, mm_procsync *ps,
                      mm_rep_buffers *b, void *cold_cache, size_t cold_cache_bytes) {
    const mm_procsync_vtable *vt = ps->vt;
    const mm_timer *timer = ps->timer;
    mm__timed timed = {t->op, args, ps->comm};
    mm_timed_fn call = vt->barrier_in_timed_region ? mm__timed_barrier_call : mm__timed_call;
    /* the overwrite runs after each repetition, before the next one's wait: begin_test's pilot
     * must know it to size a window that leaves room for it */
    mm__cold cold = {cold_cache, cold_cache_bytes};
    ps->between_reps = cold_cache ? mm__cold_touch : NULL;
    ps->between_arg = &cold;

    int rc = vt->begin_test(ps, call, &timed);
    if (rc != MPI_SUCCESS) {
        ps->between_reps = NULL;
        ps->between_arg = NULL;
        return rc;
    }

    const long nrep = cfg->nrep < b->cap ? cfg->nrep : b->cap;
    const long warmup = cfg->warmup;
    /* Schemes that redo invalid repetitions get a bound, so that a hopeless test ends. */
    const long max_redo = 10 * nrep + 100;
    long seq = 0, recorded = 0, redone = 0;
    long redone_by_reason[3] = {0, 0, 0};
    long late = 0, overrun = 0, round_late = 0;
    int mpi_rc = MPI_SUCCESS, ended_by_budget = 0;

    while (recorded < nrep) {
        int before = vt->before_rep(ps, seq);
        int64_t start_ns = mm_timer_now(timer);
        int call_rc = call(&timed);
        int64_t end_ns = mm_timer_now(timer);
        int flags = vt->after_rep(ps, seq, start_ns, end_ns, before);
        seq++;
        if (call_rc != MPI_SUCCESS) {
            mpi_rc = call_rc;
            break;
        }
        if (ps->between_reps) ps->between_reps(ps->between_arg);
        if (seq <= warmup) continue;
        if (flags && vt->redoes_invalid && redone < max_redo) {
            redone++;
            redone_by_reason[0] += (flags & MM_INVALID_LATE_START) != 0;
            redone_by_reason[1] += (flags & MM_INVALID_OVERRUN) != 0;
            redone_by_reason[2] += (flags & MM_INVALID_ROUND_LATE) != 0;
        } else {
            b->start_ns[recorded] = start_ns;
            b->end_ns[recorded] = end_ns;
            /* the online global clock as it is now (harmonize may re-sync between repetitions) */
            b->gstart_ns[recorded] = mm_clocksync_to_global(ps->cs, start_ns);
            b->gend_ns[recorded] = mm_clocksync_to_global(ps->cs, end_ns);
            b->invalid[recorded] = flags;
            late += (flags & MM_INVALID_LATE_START) != 0;
            overrun += (flags & MM_INVALID_OVERRUN) != 0;
            round_late += (flags & MM_INVALID_ROUND_LATE) != 0;
            recorded++;
        }
        /* the same answer on every rank, and `recorded` is the same everywhere */
        if (recorded < nrep && vt->budget_exhausted && vt->budget_exhausted(ps)) {
            ended_by_budget = 1;
            break;
        }
    }
    vt->end_test(ps);
    ps->between_reps = NULL;
    ps->between_arg = NULL;

    t->nrep = recorded;
    t->nrep_asked = cfg->nrep;
    t->ended_by_budget = ended_by_budget;
    t->redone = redone;
    t->redone_late_start = redone_by_reason[0];
    t->redone_overrun = redone_by_reason[1];
    t->redone_round_late = redone_by_reason[2];
    t->window_ns = ps->window_ns;
    t->resyncs = ps->nresyncs;
    /* per-reason counts are rank-repetitions, summed over ranks (rank 0 receives them) */
    long local_counts[3] = {late, overrun, round_late}, sums[3] = {0, 0, 0};
    MPI_Reduce(local_counts, sums, 3, MPI_LONG, MPI_SUM, 0, ps->comm);
    t->invalid_late_start = sums[0];
    t->invalid_overrun = sums[1];
    t->invalid_round_late = sums[2];
    return mpi_rc;
}
