/* SPDX-License-Identifier: BSD-3-Clause */
/* decide.c — rank 0 judges a test while it runs: the collective half of --nrep auto (and the
 * medians --sizes auto refines on); the rules themselves are pure (adaptive.c).
 *
 * What: every k recorded repetitions (--nrep-every), one MPI_Reduce (MAX) of six numbers per
 * repetition brings to rank 0 each repetition's longest local duration, latest global end and
 * earliest global start over the timed ranks (mm_rep_timed_rank: a round trip's initiator alone),
 * the earliest and latest global start over every rank, and whether some rank marked it invalid;
 * rank 0 turns them into the run time the analysis uses (max end - min start on the global clock
 * when the launch has one, else the longest local duration) and keeps the repetitions valid on every rank (and,
 * with a planned start, whose starts lie within the start tolerance: the analysis drops the
 * others too). Then rank 0 applies the rule and one MPI_Bcast tells every rank whether to stop,
 * so all ranks stop together after the same repetition.
 * Why: validity is decided per rank (the process sync's promise), so the rule must see the
 * repetitions valid everywhere, and only one rank may decide (Hoefler & Belli 2015 §4.2.2:
 * recompute the interval every k measurements). Both collectives run between repetitions,
 * outside any timed region; the window process sync then starts a new batch (its `resume`).
 * Cost per decision: one reduce of 6k int64 and one broadcast of an int; rank 0 sorts the n
 * valid run times (O(n log n)). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_runtime.h"
#include "mm_error.h"

/* duration, global end, -global start of the timed ranks; -global start, global start of every
 * rank; invalid */
enum { MM__FIELDS = 6 };

mm_status mm_decide_alloc(mm_decide *d, long cap, long chunk, int has_global, MPI_Comm comm) {
    memset(d, 0, sizeof *d);
    d->comm = comm;
    d->has_global = has_global;
    MPI_Comm_rank(comm, &d->rank);
    d->cap = cap > 0 ? cap : 1;
    d->chunk = chunk > 0 ? chunk : 1;
    d->send = malloc((size_t)(MM__FIELDS * d->chunk) * sizeof(int64_t));
    int ok = d->send != NULL;
    if (d->rank == 0) {
        d->recv = malloc((size_t)(MM__FIELDS * d->chunk) * sizeof(int64_t));
        d->runtimes = malloc((size_t)d->cap * sizeof(double));
        d->scratch = malloc((size_t)d->cap * sizeof(double));
        ok = ok && d->recv && d->runtimes && d->scratch;
    }
    if (!ok) mm_decide_free(d);
    return ok ? 0 : MM_E_FAILED;
}

void mm_decide_free(mm_decide *d) {
    free(d->send);
    free(d->recv);
    free(d->runtimes);
    free(d->scratch);
    d->send = d->recv = NULL;
    d->runtimes = d->scratch = NULL;
}

void mm_decide_begin(mm_decide *d, int64_t spread_ns, int64_t now_ns, int timed_rank) {
    d->spread_ns = spread_ns;
    d->timed_rank = timed_rank;
    d->nvalid = 0;
    d->upto = 0;
    d->started_ns = now_ns;
    d->local_from = LONG_MAX;
}

int mm_decide_collect(mm_decide *d, const mm_rep_buffers *b, long upto, mm_mpi_error *err) {
    while (d->upto < upto) {
        long from = d->upto, n = upto - from < d->chunk ? upto - from : d->chunk;
        int64_t *s = d->send;
        const int timed = mm_rep_rank_is_timed(d->timed_rank, d->rank); /* else: the neutral INT64_MIN */
        for (long i = 0; i < n; i++) {
            long r = from + i;
            s[MM__FIELDS * i + 0] = timed ? mm_rep_duration_ns(b->start_ns[r], b->end_ns[r]) : INT64_MIN;
            s[MM__FIELDS * i + 1] = timed ? b->gend_ns[r] : INT64_MIN;
            s[MM__FIELDS * i + 2] = timed ? -b->gstart_ns[r] : INT64_MIN; /* the maximum of its negation */
            s[MM__FIELDS * i + 3] = -b->gstart_ns[r];
            s[MM__FIELDS * i + 4] = b->gstart_ns[r];
            s[MM__FIELDS * i + 5] = b->invalid[r] != 0;
        }
        if (MM_MPI(err, MPI_Reduce(s, d->recv, (int)(MM__FIELDS * n), MPI_INT64_T, MPI_MAX, 0,
                                   d->comm)) != MPI_SUCCESS)
            return err->code;
        for (long i = 0; d->rank == 0 && i < n; i++) {
            const int64_t *v = d->recv + MM__FIELDS * i;
            int64_t first = -v[3], last = v[4];
            int planned = from + i < d->local_from; /* a planned common start: its spread is checked */
            if (v[5] || (planned && d->spread_ns > 0 && last - first > d->spread_ns)) continue;
            double runtime = (double)mm_rep_runtime_ns(d->has_global && planned, v[0], -v[2], v[1]);
            if (d->nvalid < d->cap) d->runtimes[d->nvalid++] = runtime;
        }
        d->upto += n;
    }
    return MPI_SUCCESS;
}

mm_stop_rule mm_decide_rule(const mm_config *cfg, double resolution_ns) {
    mm_stop_rule r = {cfg->adaptive.nrep_rule, cfg->adaptive.nrep_min, cfg->adaptive.nrep_max, cfg->adaptive.precision,
                      cfg->adaptive.nrep_confidence, cfg->adaptive.nrep_budget_s, resolution_ns};
    return r;
}

int mm_decide_stop(mm_decide *d, const mm_stop_rule *rule, long recorded, int64_t now_ns, int *reason,
                   double *reached, mm_mpi_error *err) {
    int verdict = MM_STOP_CONTINUE;
    if (d->rank == 0) {
        memcpy(d->scratch, d->runtimes, (size_t)d->nvalid * sizeof(double));
        double elapsed_s = (double)(now_ns - d->started_ns) * 1e-9;
        mm_stop_decision got = mm_stop_decide(rule, d->scratch, d->nvalid, recorded, elapsed_s);
        verdict = got.reason;
        *reached = got.reached;
    }
    if (MM_MPI(err, MPI_Bcast(&verdict, 1, MPI_INT, 0, d->comm)) != MPI_SUCCESS) return err->code;
    *reason = verdict;
    return MPI_SUCCESS;
}

double mm_decide_precision(mm_decide *d, const mm_stop_rule *rule) {
    if (d->rank != 0) return NAN;
    memcpy(d->scratch, d->runtimes, (size_t)d->nvalid * sizeof(double));
    /* recorded = 0: only the precision is wanted, never a verdict */
    return mm_stop_decide(rule, d->scratch, d->nvalid, 0, 0.0).reached;
}

double mm_decide_median(mm_decide *d) {
    if (d->rank != 0 || d->nvalid == 0) return NAN;
    memcpy(d->scratch, d->runtimes, (size_t)d->nvalid * sizeof(double));
    mm_sort_doubles(d->scratch, d->nvalid);
    return mm_sorted_median(d->scratch, d->nvalid);
}
