/* SPDX-License-Identifier: BSD-3-Clause */
/* back_to_back.c — a test's back-to-back companion (meta.json tests[].back_to_back).
 *
 * What: after a ping-pong or blocking collective test has recorded its repetitions, the same
 *   call on the same buffers is repeated N times with no synchronization between calls and
 *   timed as one interval, after one unrecorded interval of N calls; mean_ns = interval / N,
 *   the longest over the test's ranks. It runs through the one measurement loop (loop.c) with a
 *   copy of the configuration: --batch N, one warm-up and one recorded repetition, a barrier
 *   before each (IMB's MS2; the scheme --batch takes), no cold cache, no counters, no judging,
 *   into arrays of its own, so the test's rows and counts are untouched.
 * Why: OSU and IMB report this quantity (the mean of back-to-back calls, Hoefler, Schneider &
 *   Lumsdaine 2010 §1.2); the test's own number times each call alone (a collective from a
 *   synchronized start).
 *   Both side by side say how much of the difference is the cost of a call after a wait outside
 *   MPI (docs/ALGORITHMS.md, "Single call and back-to-back").
 * Cost: 2 x N calls and two barriers per test, N lowered so that one interval takes at most
 *   MM_B2B_BUDGET_NS by the test's median call; outside the test's timed regions. */
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"

enum { MM__B2B_WARMUP = 1, MM__B2B_INTERVALS = 1 };
#define MM_B2B_BUDGET_NS 10000000.0

int mm_op_takes_back_to_back(const mm_op *op) {
    /* --batch's own restrictions (parse_space.c): a clean-up after each call, or a repetition
     * timed in parts, cannot be batched */
    if (!op || op->after || mm_op_is_nbc(op)) return 0;
    return (op->flags & MM_OP_ROUND_TRIP) || strcmp(op->kind, MM_OP_KIND_COLLECTIVE) == 0 ||
           strcmp(op->kind, MM_OP_KIND_ROOTED) == 0;
}

int mm_back_to_back_applies(const mm_config *cfg, const mm_op *op) {
    if (cfg->measure.back_to_back <= 0 || cfg->measure.batch > 1) return 0;
    return mm_op_takes_back_to_back(op);
}

int mm_back_to_back_calls(int asked, double call_ns) {
    if (asked <= 0) return 0;
    if (!(call_ns > 0) || call_ns * asked <= MM_B2B_BUDGET_NS) return asked;
    int fit = (int)(MM_B2B_BUDGET_NS / call_ns);
    return fit > 1 ? fit : 1;
}

/* This rank's median run time of the test's valid recorded repetitions (all when none is valid);
 * 0 without repetitions. */
static double mm__median_call_ns(const mm_rep_buffers *b, long n) {
    if (n <= 0) return 0;
    int64_t *v = malloc((size_t)n * sizeof *v);
    if (!v) return 0;
    long k = 0;
    for (long i = 0; i < n; i++)
        if (b->invalid[i] == 0) v[k++] = b->end_ns[i] - b->start_ns[i];
    if (k == 0)
        for (long i = 0; i < n; i++) v[k++] = b->end_ns[i] - b->start_ns[i];
    qsort(v, (size_t)k, sizeof *v, mm_cmp_i64);
    double median = (double)v[k / 2];
    free(v);
    return median;
}

int mm_bench_run_back_to_back(const mm_test_run *run, mm_test *t, mm_mpi_error *err) {
    t->back_to_back_calls = 0;
    t->back_to_back_mean_ns = -1;
    double mine = mm__median_call_ns(run->b, t->nrep), slowest = 0;
    if (MM_MPI(err, MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, run->ps->comm)) !=
        MPI_SUCCESS)
        return err->code;
    mm_config *cfg = malloc(sizeof *cfg); /* large: kept off the stack */
    mm_test *copy = malloc(sizeof *copy);
    mm_rep_buffers b;
    int ok = cfg && copy && mm_rep_buffers_alloc(&b, MM__B2B_INTERVALS) == 0;
    if (!mm_all_ok(run->ps->comm, ok)) {
        free(cfg);
        free(copy);
        if (ok) mm_rep_buffers_free(&b);
        return MPI_SUCCESS; /* no companion: the test's own record stands */
    }
    *cfg = *run->cfg;
    cfg->measure.batch = mm_back_to_back_calls(run->cfg->measure.back_to_back, slowest);
    cfg->measure.warmup = MM__B2B_WARMUP;
    cfg->nrep = MM__B2B_INTERVALS;
    cfg->adaptive.nrep_rule = MM_NREP_FIXED;
    /* a barrier before each interval, on the test's communicator and clocks */
    mm_procsync ps = *run->ps;
    ps.vt = mm_procsync_find("barrier");
    ps.state = NULL;
    ps.cfg = cfg;
    mm_mpi_error_clear(&ps.err);
    *copy = *t;
    copy->deadline_local_ns = 0; /* no budget: two intervals */
    mm_test_run companion = {.cfg = cfg, .args = run->args, .ps = &ps, .b = &b};
    int rc = mm_bench_run_test(&companion, copy, err);
    /* the loop recorded the interval's share of one call (end = start + interval / N) */
    double per_call = rc == MPI_SUCCESS && copy->nrep == MM__B2B_INTERVALS
                          ? (double)(b.end_ns[0] - b.start_ns[0]) : -1;
    int calls = cfg->measure.batch;
    free(cfg);
    free(copy);
    mm_rep_buffers_free(&b);
    /* every rank takes part, also one whose calls failed: the others learn it */
    double mine_end[2] = {per_call, rc != MPI_SUCCESS}, all_end[2] = {-1, 1};
    if (MM_MPI(err, MPI_Allreduce(mine_end, all_end, 2, MPI_DOUBLE, MPI_MAX, run->ps->comm)) !=
            MPI_SUCCESS ||
        rc != MPI_SUCCESS)
        return rc != MPI_SUCCESS ? rc : err->code;
    if (all_end[1] == 0 && all_end[0] >= 0) {
        t->back_to_back_calls = calls;
        t->back_to_back_mean_ns = all_end[0];
    }
    return MPI_SUCCESS;
}
