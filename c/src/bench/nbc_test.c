/* SPDX-License-Identifier: BSD-3-Clause */
/* nbc_test.c — one nonblocking collective's test: a blocking phase, then an overlap phase, both
 * through the one measurement loop (loop.c).
 *
 * What: (1) the blocking phase records, per repetition, the I-call immediately followed by
 * MPI_Wait; (2) t_b is --nbc-compute-ns or the median of this rank's valid blocking times, the
 * maximum over ranks, so every rank computes as long as the slowest rank's operation takes;
 * (3) with --nbc-scheme work each rank calibrates the workload units that take t_b alone on it;
 * (4) the overlap phase records post + computation (with MPI_Test calls) + wait and its
 * components. Both phases run the process sync, warm-up and validity rules of any test.
 * Why: NBCBench (Hoefler, Schneider & Lumsdaine 2010 §4) defines overlap against the blocking
 * time of the same operation and size, measured in the same setting; measuring it in the same
 * test (same buffers, same launch, same clock) keeps the pair comparable. The two phases' i-th
 * repetitions are paired by index for the per-repetition overlap; a pair is valid only when
 * both are.
 * Cost: two phases of nrep repetitions each; the calibration takes a few times t_b. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"

int mm_nbc_test_calls(int64_t size, int64_t interval_bytes) {
    if (interval_bytes <= 0) return 0;
    int64_t calls = (size > 0 ? (size + interval_bytes - 1) / interval_bytes : 0) + 1;
    return calls > INT_MAX ? INT_MAX : (int)calls;
}

static int mm__cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Median of this rank's blocking times over the repetitions valid here (all of them when none
 * is): the typical blocking time; 0 without repetitions. */
static int64_t mm__blocking_median(const mm_rep_buffers *b, long n) {
    if (n <= 0) return 0;
    int64_t *v = malloc((size_t)n * sizeof *v);
    if (!v) return b->blocking_ns[0];
    long k = 0;
    for (long i = 0; i < n; i++)
        if (b->blocking_flags[i] == 0) v[k++] = b->blocking_ns[i];
    if (k == 0)
        for (long i = 0; i < n; i++) v[k++] = b->blocking_ns[i];
    qsort(v, (size_t)k, sizeof *v, mm__cmp_i64);
    int64_t median = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
    free(v);
    return median;
}

int mm_bench_run_nbc_test(const mm_test_run *run, mm_test *t, mm_mpi_error *err) {
    const mm_config *cfg = run->cfg;
    const mm_procsync *ps = run->ps;
    mm_rep_buffers *b = run->b;
    mm_nbc *nbc = run->args->nbc;
    nbc->phase = MM_NBC_BLOCKING;
    nbc->work_scheme = cfg->nbc.work_scheme;
    /* the blocking phase is the one judged (--nrep auto, --sizes auto): it is the operation's
     * run time; the overlap phase pairs its repetitions with the blocking phase's by index */
    /* the per-block load covers the overlap phase: its repetitions are raw.csv's rows */
    mm_test_run blocking = *run;
    blocking.other_cpu = NULL;
    int rc = mm_bench_run_test(&blocking, t, err);
    if (rc != MPI_SUCCESS) return rc;
    /* what the blocking phase counted is kept and added to the overlap phase's counts */
    long blocking_nrep = t->nrep, blocking_redone = t->redone, blocking_resyncs = t->resyncs;
    long invalid_by_reason[4], redone_by_reason[4];
    memcpy(invalid_by_reason, t->invalid_by_reason, sizeof invalid_by_reason);
    memcpy(redone_by_reason, t->redone_by_reason, sizeof redone_by_reason);
    int blocking_budget = t->ended_by_budget;

    int64_t compute_ns = cfg->nbc.compute_ns;
    if (compute_ns <= 0) {
        int64_t mine = mm__blocking_median(b, blocking_nrep);
        if (MM_MPI(err, MPI_Allreduce(&mine, &compute_ns, 1, MPI_INT64_T, MPI_MAX, ps->comm)) !=
            MPI_SUCCESS)
            return err->code;
    }
    nbc->compute_ns = compute_ns;
    nbc->ntests = mm_nbc_test_calls(t->size, cfg->nbc.test_interval_bytes);
    int64_t calibrated_ns = 0;
    nbc->work_units = nbc->work_scheme ? mm_nbc_calibrate(ps->timer, compute_ns, &calibrated_ns) : 0;
    long units_max = nbc->work_units;
    int64_t calibrated_max = calibrated_ns;
    if (MM_MPI(err, MPI_Allreduce(&nbc->work_units, &units_max, 1, MPI_LONG, MPI_MAX, ps->comm)) !=
            MPI_SUCCESS ||
        MM_MPI(err, MPI_Allreduce(&calibrated_ns, &calibrated_max, 1, MPI_INT64_T, MPI_MAX,
                                  ps->comm)) != MPI_SUCCESS)
        return err->code;

    nbc->phase = MM_NBC_OVERLAP;
    /* --nrep auto: the overlap phase records as many repetitions as the rule gave the blocking
     * phase, so that each has its pair (a copy of the configuration with that fixed count) */
    static mm_config fixed; /* large: kept off the stack */
    mm_test_run overlap = *run;
    overlap.d = NULL;
    if (cfg->adaptive.nrep_rule != MM_NREP_FIXED) {
        fixed = *cfg;
        fixed.adaptive.nrep_rule = MM_NREP_FIXED;
        fixed.nrep = (int)(blocking_nrep > 0 ? blocking_nrep : 1);
        overlap.cfg = &fixed;
    }
    rc = mm_bench_run_test(&overlap, t, err);
    t->nrep_asked = cfg->nrep;
    t->nbc_compute_ns = compute_ns;
    t->nbc_ntests = nbc->ntests;
    t->nbc_work_units = units_max;
    t->nbc_calibrated_ns = calibrated_max;
    t->nbc_blocking_nrep = blocking_nrep;
    if (rc != MPI_SUCCESS) return rc;
    /* pair the phases' repetitions by index: one invalid makes the pair invalid; a repetition
     * the blocking phase did not reach (its time budget ended it) has no blocking time */
    for (long i = 0; i < t->nrep; i++) {
        if (i < blocking_nrep)
            b->invalid[i] |= b->blocking_flags[i];
        else
            b->blocking_ns[i] = INT64_MIN;
    }
    for (int r = 0; r < 4; r++) {
        t->invalid_by_reason[r] += invalid_by_reason[r];
        t->redone_by_reason[r] += redone_by_reason[r];
    }
    t->redone += blocking_redone;
    t->resyncs += blocking_resyncs;
    t->ended_by_budget |= blocking_budget;
    return rc;
}
