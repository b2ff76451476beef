/* SPDX-License-Identifier: BSD-3-Clause */
/* clocksync.c — the clock-sync registry, parameters, running a sync, the sync log and the
 * residual check (docs/ALGORITHMS.md, "Checking a sync").
 *
 * Running a sync: a barrier, the algorithm, then rank 0's model is forced to identity (the
 * global clock is rank 0's clock), the duration (max over ranks) is agreed with one allreduce,
 * and every rank logs one MM_SYNC_MODEL record (global − local at the end of the sync: the
 * points the after-the-fact clock interpolates).
 * Residuals: rank 0 runs a min-RTT ping-pong with each checked rank, both sides reading their
 * *global* clocks; what remains is the sync's error plus at most half the best RTT. The true
 * error, when the timer knows the truth (virtual), is computed locally on every rank from
 * mm_timer_truth_ns (the tightest of a few readings around the clock's) and gathered: no
 * messages are needed for it. A ping-pong's failure is recorded in cs->err as "ping-pong".
 * Cost of the residual check: one offset measurement per checked rank (<= 64) and one gather. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cs_internal.h"
#include "mm_config.h"
#include "mm_facts.h"
#include "mm_error.h"

enum { MM__TAG_RESIDUAL = 103, MM__RESIDUAL_SAMPLE_MAX = 64 };

const mm_clocksync_vtable *const mm_clocksync_registry[] = {
    &mm_clocksync_none, &mm_clocksync_skampi, &mm_clocksync_netgauge, &mm_clocksync_jk,
    &mm_clocksync_hca,  &mm_clocksync_hca2,   &mm_clocksync_hca3,     &mm_clocksync_hca3o,
    NULL,
};

const mm_clocksync_vtable *mm_clocksync_find(const char *name) {
    if (!name) return NULL;
    for (int i = 0; mm_clocksync_registry[i]; i++)
        if (strcmp(mm_clocksync_registry[i]->name, name) == 0) return mm_clocksync_registry[i];
    return NULL;
}

const char *mm_clocksync_names(void) {
    /* Kept in the registry's order; test_offset.c checks that the two agree. */
    return "none, skampi, netgauge, jk, hca, hca2, hca3, hca3o";
}

/* ---- parameters ---- */

void mm_clocksync_params_resolve(const char *name, const mm_clocksync_params *given,
                                 mm_clocksync_params *out) {
    mm_clocksync_params p = {0, 0, 0, 0, 0.0, 0, 0.0};
    if (given) p = *given;
    (void)name; /* one set of defaults today; the name lets an algorithm differ later */
    if (p.nfit <= 0) p.nfit = MM_CS_DEFAULT_NFIT;
    if (p.pingpong_cap <= 0) p.pingpong_cap = MM_CS_DEFAULT_CAP;
    if (p.n_nonimproving <= 0) p.n_nonimproving = MM_CS_DEFAULT_N;
    if (p.min_rounds <= 0) p.min_rounds = MM_CS_DEFAULT_MIN_ROUNDS;
    if (!(p.fit_span_s > 0)) p.fit_span_s = MM_CS_DEFAULT_FIT_SPAN_S;
    if (p.fit_target_ns < 0) p.fit_target_ns = 0;
    p.fit_horizon_s = p.fit_target_ns > 0 ? MM_FIT_HORIZON_S : 0.0;
    *out = p;
}

mm_status mm_clocksync_params_check(const mm_clocksync_params *p, char *err, size_t err_len) {
    if (p->nfit < 0 || p->pingpong_cap < 0 || p->n_nonimproving < 0 || p->min_rounds < 0) {
        snprintf(err, err_len, "clock sync parameters must not be negative (nfit %d, pingpongs %d, "
                 "n-nonimproving %d, min-rounds %d)", p->nfit, p->pingpong_cap,
                 p->n_nonimproving, p->min_rounds);
        return MM_E_INPUT;
    }
    if (!isfinite(p->fit_span_s) || p->fit_span_s < 0) {
        snprintf(err, err_len, "--fit-span-s must be a finite number >= 0 (0 = default), got %g",
                 p->fit_span_s);
        return MM_E_INPUT;
    }
    if (p->fit_span_s > 3600) {
        snprintf(err, err_len, "--fit-span-s %g: at most 3600 s", p->fit_span_s);
        return MM_E_INPUT;
    }
    return 0;
}



/* ---- open / run / close ---- */

mm_status mm_clocksync_open(mm_clocksync *cs, const char *name, MPI_Comm comm, const mm_timer *timer,
                            const mm_clocksync_params *params) {
    memset(cs, 0, sizeof *cs);
    cs->comm = MPI_COMM_NULL;
    cs->vt = mm_clocksync_find(name);
    if (!cs->vt || !timer) return MM_E_FAILED;
    if (params) {
        char err[256]; /* the parser checked them already (app/parse.c): the message is its */
        if (mm_clocksync_params_check(params, err, sizeof err) != 0) {
            cs->vt = NULL;
            return MM_E_FAILED;
        }
    }
    mm_clocksync_params_resolve(name, params, &cs->params);
    /* A private communicator: the ping-pong tags can never meet the benchmark's messages. It
     * inherits comm's error handler; set it anyway, errors must come back to us. */
    if (MM_MPI(&cs->err, MPI_Comm_dup(comm, &cs->comm)) != MPI_SUCCESS) {
        cs->comm = MPI_COMM_NULL;
        cs->vt = NULL;
        return MM_E_FAILED;
    }
    MM_MPI(&cs->err, mm_mpi_errors_return(cs->comm));
    MM_MPI(&cs->err, MPI_Comm_rank(cs->comm, &cs->rank));
    MM_MPI(&cs->err, MPI_Comm_size(cs->comm, &cs->nprocs));
    cs->timer = timer;
    cs->model = mm_model_identity();
    cs->parent = -1;
    return 0;
}

mm_status mm_clocksync_run(mm_clocksync *cs) {
    cs->phase = cs->nsyncs;
    mm_clock_model before = cs->model;
    int parent_before = cs->parent;
    if (cs->rank == 0) cs->model = mm_model_identity();
    int rc = MM_MPI(&cs->err, MPI_Barrier(cs->comm));
    int64_t t0 = mm_timer_now(cs->timer);
    if (rc == MPI_SUCCESS) rc = mm_mpi_check(&cs->err, cs->vt->sync(cs), cs->vt->name);
    if (cs->rank == 0) {
        cs->model = mm_model_identity();
        cs->parent = -1;
    }
    int64_t t1 = mm_timer_now(cs->timer);
    /* a record the log could not keep (out of memory) fails the sync: sync.csv would miss it */
    int failed = rc != MPI_SUCCESS || cs->log.lost > 0;
    double mine[2] = {(double)(t1 - t0) * 1e-9, failed ? 1.0 : 0.0}, all[2] = {0, 1};
    MM_MPI(&cs->err, MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, cs->comm));
    if (all[1] != 0.0) {
        /* failed somewhere: keep the model of the last good sync (the caller records the
         * failure); a half-run algorithm leaves a model nobody can trust */
        cs->model = before;
        cs->parent = parent_before;
        cs->nfailed++;
        return MM_E_FAILED;
    }
    if (cs->nsyncs == 0) cs->duration_s = all[0];
    cs->total_duration_s += all[0];
    cs->nsyncs++;
    cs->last_sync_local_ns = t1;
    mm_sync_record r = {cs->rank, cs->phase, MM_SYNC_MODEL, -1, t1,
                        mm_model_global_ns(&cs->model, t1) - t1, 0};
    mm_sync_log_add(&cs->log, r);
    return 0;
}

void mm_clocksync_close(mm_clocksync *cs) {
    if (cs->comm != MPI_COMM_NULL) MM_MPI(&cs->err, MPI_Comm_free(&cs->comm));
    mm_sync_log_free(&cs->log);
    cs->vt = NULL;
}

/* ---- residuals ---- */

static int mm__cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int mm_clocksync_residual_sample(int nprocs, int *ranks) {
    int n = 0;
    if (nprocs <= MM__RESIDUAL_SAMPLE_MAX) {
        for (int r = 1; r < nprocs; r++) ranks[n++] = r;
        return n;
    }
    /* 63 ranks spread evenly over [1, p−1] (both ends included), plus the largest power of
     * two below p; sorted, duplicates dropped: at most 64. */
    const int spread = MM__RESIDUAL_SAMPLE_MAX - 1;
    for (int i = 0; i < spread; i++)
        ranks[n++] = 1 + (int)((int64_t)i * (nprocs - 2) / (spread - 1));
    int pow2 = 1;
    while (2 * pow2 < nprocs) pow2 *= 2;
    ranks[n++] = pow2;
    qsort(ranks, (size_t)n, sizeof *ranks, mm__cmp_int);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || ranks[i] != ranks[m - 1]) ranks[m++] = ranks[i];
    return m;
}

/* A rank preempted between its truth and clock reads (ranks outnumbering cores) would be off by
 * half the time it waited (seen: 66 us after a 5 s wait, while the residual read 54 ns); a
 * preemption is over within one try, so of a few tries back to back one is tight. */
enum { MM__TRUTH_TRIES = 3 };

int64_t mm_clocksync_deviation_from_truth(const mm_clocksync *cs) {
    int64_t deviation = 0, tightest = INT64_MAX;
    for (int k = 0; k < MM__TRUTH_TRIES; k++) {
        int64_t before = mm_timer_truth_ns(cs->timer);
        int64_t local = mm_timer_now(cs->timer);
        int64_t after = mm_timer_truth_ns(cs->timer);
        if (after - before < tightest) {
            tightest = after - before;
            deviation = mm_model_global_ns(&cs->model, local) - (before + (after - before) / 2);
        }
    }
    return deviation;
}

int mm_clocksync_true_errors(mm_clocksync *cs, int64_t *true_error_ns) {
    int64_t mine = mm_clocksync_deviation_from_truth(cs);
    int rc = MM_MPI(&cs->err, MPI_Gather(&mine, 1, MPI_INT64_T, true_error_ns, 1, MPI_INT64_T, 0,
                                         cs->comm));
    /* deviations (global − truth) into errors (rank 0's global − the rank's): rank 0 last */
    if (cs->rank == 0 && rc == MPI_SUCCESS)
        for (int r = cs->nprocs - 1; r >= 0; r--) true_error_ns[r] = true_error_ns[0] - true_error_ns[r];
    return rc;
}

typedef struct mm__residual_msg {
    int64_t residual_ns, peer_global_ns, rtt_ns;
} mm__residual_msg;

int mm_clocksync_residuals(mm_clocksync *cs, int phase, int *ranks, int64_t *residual_ns,
                           int64_t *true_error_ns, int *n) {
    int *sample = malloc((size_t)cs->nprocs * sizeof *sample);
    int64_t *deviation = cs->rank == 0 ? malloc((size_t)cs->nprocs * sizeof *deviation) : NULL;
    int ok = sample != NULL && (cs->rank != 0 || deviation != NULL);
    if (!mm_all_ok(cs->comm, ok)) {
        free(sample);
        free(deviation);
        return MPI_ERR_NO_MEM;
    }
    int ns = mm_clocksync_residual_sample(cs->nprocs, sample);
    mm_offset_rules rules = mm_offset_rules_min_rtt(&cs->params);
    mm_clockfn global = mm_clockfn_global(cs);
    int64_t my_deviation = mm_clocksync_deviation_from_truth(cs);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < ns && rc == MPI_SUCCESS; i++) {
        int r = sample[i];
        if (cs->rank == 0) {
            mm_offset_result res;
            rc = mm_mpi_check(&cs->err, mm_offset_measure(cs->comm, r, global, &rules, &res), "ping-pong");
            /* measured: r's global − rank 0's global; the residual is the other way round */
            mm__residual_msg msg = {-res.offset_ns, res.peer_ns, res.rtt_ns};
            if (rc == MPI_SUCCESS)
                rc = MM_MPI(&cs->err, MPI_Send(&msg, 3, MPI_INT64_T, r, MM__TAG_RESIDUAL, cs->comm));
            residual_ns[i] = msg.residual_ns;
            ranks[i] = r;
        } else if (cs->rank == r) {
            my_deviation = mm_clocksync_deviation_from_truth(cs);
            cs->residual_local_ns = mm_timer_now(cs->timer);
            rc = mm_mpi_check(&cs->err, mm_offset_respond(cs->comm, 0, global), "ping-pong");
            mm__residual_msg msg;
            if (rc == MPI_SUCCESS)
                rc = MM_MPI(&cs->err, MPI_Recv(&msg, 3, MPI_INT64_T, 0, MM__TAG_RESIDUAL,
                                               cs->comm, MPI_STATUS_IGNORE));
            if (rc == MPI_SUCCESS) {
                mm_sync_record rec = {cs->rank, phase, MM_SYNC_RESIDUAL, 0,
                                      mm_clocksync_to_local(cs, msg.peer_global_ns),
                                      msg.residual_ns, msg.rtt_ns};
                mm_sync_log_add(&cs->log, rec);
            }
        }
    }
    if (rc == MPI_SUCCESS)
        rc = MM_MPI(&cs->err, MPI_Gather(&my_deviation, 1, MPI_INT64_T, deviation, 1, MPI_INT64_T,
                                         0, cs->comm));
    if (cs->rank == 0) {
        *n = ns;
        /* the truth of what the residual estimates: rank 0's global − the rank's global */
        if (true_error_ns && rc == MPI_SUCCESS)
            for (int i = 0; i < ns; i++) true_error_ns[i] = deviation[0] - deviation[sample[i]];
    } else if (n) {
        *n = 0;
    }
    free(sample);
    free(deviation);
    return rc;
}

void mm_clocksync_facts_of(const mm_config *cfg, const mm_clocksync *cs, mm_sync_facts *f) {
    memset(f, 0, sizeof *f);
    const char *name = cfg && cfg->nclocksync > 0 ? cfg->clocksync[0] : NULL;
    if (cs)
        f->used = cs->params;
    else if (name)
        mm_clocksync_params_resolve(name, NULL, &f->used);
    const mm_clocksync_vtable *vt = cs && cs->vt ? cs->vt : name ? mm_clocksync_find(name) : NULL;
    f->model_kind = cs && cs->vt ? mm_clocksync_model_kind(cs) : vt ? vt->model_kind : "identity";
    if (cs && cs->vt) {
        f->self_checked = cs->self_checked;
        f->offset_only = cs->offset_only;
        f->self_check_linear_ns = cs->self_check_linear_ns;
        f->self_check_offset_ns = cs->self_check_offset_ns;
        f->method = cs->vt->name;
        f->duration_s = cs->duration_s;
        f->total_duration_s = cs->total_duration_s;
        f->nsyncs = cs->nsyncs;
        f->nfailed = cs->nfailed;
    }
}
