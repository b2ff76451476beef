/* SPDX-License-Identifier: BSD-3-Clause */
/* sync_check.c — `mpimeter-bench --sync-check`: how good is each clock sync, here and now?
 *
 * What: for each algorithm of --clocksync, in order: open it, run one sync, then at each
 *   --check-at time (seconds after that sync ended, on each rank's own clock) measure the
 *   residual offsets (mm_clocksync_residuals: rank 0's global clock against every rank's) and,
 *   where the truth is known, the true errors. Rank 0 prints a table, or with --json one object:
 *   {"algorithms": [{"name", "sync_duration_s", "checks": [{"t_s", "max_abs_residual_ns",
 *    "residual_ns": [per rank], "max_abs_true_error_ns", "true_error_ns": [per rank]}]}]}
 *   Per-rank arrays are indexed by rank: rank 0 is 0, ranks outside the residual sample (p > 64)
 *   are null. The true-error fields appear only when the truth is known: the `virtual` timer
 *   with all ranks on one host (they then share its base clock), or under SimGrid's SMPI (its
 *   simulated hosts share one clock). They include "max_abs_true_error_all_ns": the largest
 *   true error over every rank, not only the sample (the truth costs no messages: one gather).
 *   Residual and true error have the same sign convention (rank 0's global − the rank's): the
 *   residual is the estimate, the true error its exact value.
 * Why: every sync is verified against known truth instead of trusted (docs/ALGORITHMS.md,
 *   "Checking a sync").
 * Cost: per algorithm one sync, then per check time one residual check (one offset measurement
 *   per checked rank); the waits are sleeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_json.h"
#include "mm_mpi.h"
#include "mm_timer.h"
#include "mm_error.h"

typedef struct mm__check_result {
    int have_residual; /* per rank */
    int64_t residual_ns, true_error_ns;
} mm__check_result;

typedef struct mm__sync_check {
    const mm_config *cfg;
    int rank, nprocs, truth_known;
    double *duration_s;       /* [alg] */
    int64_t *max_true_all;    /* [alg][check]: over every rank */
    mm__check_result *checks; /* [alg][check][rank] */
    int failed_here;          /* the failure that ended the check is this rank's own */
} mm__sync_check;

static mm__check_result *mm__at(mm__sync_check *sc, int alg, int check, int rank) {
    return &sc->checks[((size_t)alg * (size_t)sc->cfg->check.ncheck + (size_t)check) * (size_t)sc->nprocs +
                       (size_t)rank];
}

static int64_t mm__abs64(int64_t v) { return v < 0 ? -v : v; }

/* Why a step of one algorithm's check failed, in why: this rank's MPI failure (cs->err), the
 * sync's records lost out of memory, or else a failure on another rank (which says why).
 * MM_E_FAILED. */
static mm_status mm__check_failed(const mm_clocksync *cs, const char *step, double at_s, char *why,
                                  size_t why_len) {
    char what[sizeof cs->err.call + sizeof cs->err.text + 2] = "";
    if (mm_mpi_failed(&cs->err))
        mm_mpi_error_format(&cs->err, what, sizeof what);
    else if (cs->log.lost > 0)
        snprintf(what, sizeof what, "out of memory for %zu of the sync's records", cs->log.lost);
    else
        snprintf(what, sizeof what, "on another rank");
    if (at_s < 0) return mm_error_set(why, why_len, "--clocksync %s: %s failed: %s", cs->vt->name, step, what);
    return mm_error_set(why, why_len, "--clocksync %s: %s at %g s failed: %s", cs->vt->name, step, at_s, what);
}

/* Collective: the largest true error over every rank (tru: scratch of nprocs on rank 0).
 * Returns 0, or MM_E_FAILED with why. */
static mm_status mm__true_all(mm__sync_check *sc, mm_clocksync *cs, int alg, int check, int64_t *tru,
                              char *why, size_t why_len) {
    if (mm_clocksync_true_errors(cs, sc->rank == 0 ? tru : NULL) != MPI_SUCCESS)
        return mm__check_failed(cs, "the true errors", sc->cfg->check.check_at_s[check], why, why_len);
    if (sc->rank != 0) return 0;
    int64_t *m = &sc->max_true_all[alg * sc->cfg->check.ncheck + check];
    for (int r = 0; r < sc->nprocs; r++)
        if (mm__abs64(tru[r]) > *m) *m = mm__abs64(tru[r]);
    return 0;
}

/* Collective: one algorithm, all its checks. Returns 0, or MM_E_FAILED with why (after an
 * algorithm that cannot be opened: the message on stderr). */
static mm_status mm__check_one(mm__sync_check *sc, int alg, const mm_timer *timer, MPI_Comm comm,
                               int *ranks, int64_t *res, int64_t *tru, char *why, size_t why_len) {
    const mm_config *cfg = sc->cfg;
    mm_clocksync cs;
    if (mm_clocksync_open(&cs, cfg->clocksync[alg], comm, timer, &cfg->cs.params) != 0) {
        if (sc->rank == 0)
            fprintf(stderr, "mpimeter-bench: --clocksync: cannot open '%s'; allowed: %s\n",
                    cfg->clocksync[alg], mm_clocksync_names());
        return MM_E_FAILED;
    }
    mm_status rc = mm_clocksync_run(&cs);
    if (rc != MM_OK) rc = mm__check_failed(&cs, "the sync", -1, why, why_len);
    int64_t sync_end = mm_timer_now(timer);
    sc->duration_s[alg] = cs.duration_s;
    for (int c = 0; c < cfg->check.ncheck && rc == 0; c++) {
        mm_timer_sleep_until(timer, sync_end + (int64_t)(cfg->check.check_at_s[c] * 1e9 + 0.5));
        /* the truth first: the residual check takes a while (a ping-pong per sampled rank),
         * and offset-only models drift meanwhile */
        if (sc->truth_known) rc = mm__true_all(sc, &cs, alg, c, tru, why, why_len);
        int n = 0;
        if (rc == 0 && mm_clocksync_residuals(&cs, c == 0 ? -1 : -2, ranks, res, tru, &n) != MPI_SUCCESS)
            rc = mm__check_failed(&cs, "the residuals", cfg->check.check_at_s[c], why, why_len);
        if (rc != 0) continue;
        if (sc->rank == 0) {
            mm__at(sc, alg, c, 0)->have_residual = 1; /* rank 0 against itself: 0 by definition */
            for (int i = 0; i < n; i++) {
                mm__check_result *r = mm__at(sc, alg, c, ranks[i]);
                r->have_residual = 1;
                r->residual_ns = res[i];
                r->true_error_ns = tru[i];
            }
        }
    }
    if (rc != MM_OK) sc->failed_here = mm_mpi_failed(&cs.err) || cs.log.lost > 0;
    mm_clocksync_close(&cs);
    return rc;
}

static void mm__print_json(mm__sync_check *sc) {
    const mm_config *cfg = sc->cfg;
    mm_buf buf = {0};
    mm_json j;
    mm_json_init(&j, &buf, 0);
    mm_json_begin_object(&j);
    mm_json_key(&j, "algorithms");
    mm_json_begin_array(&j);
    for (int a = 0; a < cfg->nclocksync; a++) {
        mm_json_begin_object(&j);
        mm_json_kv_string(&j, "name", cfg->clocksync[a]);
        mm_json_kv_double(&j, "sync_duration_s", sc->duration_s[a]);
        mm_json_key(&j, "checks");
        mm_json_begin_array(&j);
        for (int c = 0; c < cfg->check.ncheck; c++) {
            int64_t max_res = 0, max_true = 0;
            for (int r = 0; r < sc->nprocs; r++) {
                const mm__check_result *x = mm__at(sc, a, c, r);
                if (!x->have_residual) continue;
                if (mm__abs64(x->residual_ns) > max_res) max_res = mm__abs64(x->residual_ns);
                if (mm__abs64(x->true_error_ns) > max_true) max_true = mm__abs64(x->true_error_ns);
            }
            mm_json_begin_object(&j);
            mm_json_kv_double(&j, "t_s", cfg->check.check_at_s[c]);
            mm_json_kv_int(&j, "max_abs_residual_ns", max_res);
            mm_json_key(&j, "residual_ns");
            mm_json_begin_array(&j);
            for (int r = 0; r < sc->nprocs; r++) {
                const mm__check_result *x = mm__at(sc, a, c, r);
                if (x->have_residual)
                    mm_json_int(&j, x->residual_ns);
                else
                    mm_json_null(&j);
            }
            mm_json_end_array(&j);
            if (sc->truth_known) {
                mm_json_kv_int(&j, "max_abs_true_error_ns", max_true);
                mm_json_kv_int(&j, "max_abs_true_error_all_ns", sc->max_true_all[a * cfg->check.ncheck + c]);
                mm_json_key(&j, "true_error_ns");
                mm_json_begin_array(&j);
                for (int r = 0; r < sc->nprocs; r++) {
                    const mm__check_result *x = mm__at(sc, a, c, r);
                    if (x->have_residual)
                        mm_json_int(&j, x->true_error_ns);
                    else
                        mm_json_null(&j);
                }
                mm_json_end_array(&j);
            }
            mm_json_end_object(&j);
        }
        mm_json_end_array(&j);
        mm_json_end_object(&j);
    }
    mm_json_end_array(&j);
    mm_json_end_object(&j);
    fwrite(buf.data, 1, buf.len, stdout);
    fputc('\n', stdout);
    fflush(stdout);
    mm_buf_free(&buf);
}

static void mm__print_table(mm__sync_check *sc) {
    const mm_config *cfg = sc->cfg;
    int per_rank = sc->nprocs <= 16;
    printf("clock sync check: %d ranks, timer %s", sc->nprocs, cfg->timing.timer);
    if (strcmp(cfg->timing.timer, "virtual") == 0)
        printf(" (base %s, offsets within +-%g s, skews +-%g ppm, seed %llu)", cfg->timing.virtual_base,
               cfg->timing.virtual_offset_s, cfg->timing.virtual_skew_ppm, (unsigned long long)cfg->plan.seed);
    printf("\nresidual = rank 0's global clock minus the rank's, measured by ping-pong (ns)%s\n\n",
           sc->truth_known ? "; true error = its exact value from the virtual timer's base" : "");
    printf("%-10s %10s %7s %14s", "algorithm", "sync_s", "t_s", "max|residual|");
    if (sc->truth_known) printf(" %14s", "max|true err|");
    if (per_rank) printf("  residual per rank 1..%d%s", sc->nprocs - 1,
                         sc->truth_known ? " / true error per rank" : "");
    printf("\n");
    for (int a = 0; a < cfg->nclocksync; a++) {
        for (int c = 0; c < cfg->check.ncheck; c++) {
            int64_t max_res = 0, max_true = 0;
            for (int r = 1; r < sc->nprocs; r++) {
                const mm__check_result *x = mm__at(sc, a, c, r);
                if (!x->have_residual) continue;
                if (mm__abs64(x->residual_ns) > max_res) max_res = mm__abs64(x->residual_ns);
                if (mm__abs64(x->true_error_ns) > max_true) max_true = mm__abs64(x->true_error_ns);
            }
            if (c == 0)
                printf("%-10s %10.4f", cfg->clocksync[a], sc->duration_s[a]);
            else
                printf("%-10s %10s", "", "");
            printf(" %7g %14lld", cfg->check.check_at_s[c], (long long)max_res);
            if (sc->truth_known) printf(" %14lld", (long long)max_true);
            if (per_rank) {
                printf(" ");
                for (int r = 1; r < sc->nprocs; r++)
                    printf(" %lld", (long long)mm__at(sc, a, c, r)->residual_ns);
                if (sc->truth_known) {
                    printf(" /");
                    for (int r = 1; r < sc->nprocs; r++)
                        printf(" %lld", (long long)mm__at(sc, a, c, r)->true_error_ns);
                }
            }
            printf("\n");
        }
    }
    fflush(stdout);
}

/* 1 when every rank of comm reads one base clock: all on one host (one shared-memory node), or
 * simulated by SimGrid's SMPI, whose hosts all share its one perfect clock. */
static int mm__one_clock(MPI_Comm comm, int nprocs) {
#ifdef MM_SIMGRID
    (void)comm, (void)nprocs;
    return 1;
#else
    MPI_Comm node;
    if (MM_MPI(NULL, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node)) !=
        MPI_SUCCESS)
        return 0;
    int node_size = 0;
    MM_MPI(NULL, MPI_Comm_size(node, &node_size));
    MM_MPI(NULL, MPI_Comm_free(&node));
    return mm_all_ok(comm, node_size == nprocs);
#endif
}

mm_status mm_sync_check_run(const mm_config *cfg, MPI_Comm comm) {
    mm__sync_check sc = {cfg, 0, 0, 0, NULL, NULL, NULL, 0};
    MM_MPI(NULL, MPI_Comm_rank(comm, &sc.rank));
    MM_MPI(NULL, MPI_Comm_size(comm, &sc.nprocs));
    if (cfg->nclocksync < 1 || cfg->check.ncheck < 1) {
        if (sc.rank == 0)
            fprintf(stderr, "mpimeter-bench: --sync-check needs at least one --clocksync name "
                            "and one --check-at time\n");
        return MM_E_INPUT;
    }
    mm_timer timer;
    mm_virtual_params vp;
    mm_config_virtual_params(cfg, sc.rank, &vp);
    char why[512] = "";
    int ok = mm_timer_open(&timer, cfg->timing.timer, &vp, why, sizeof why) == 0;
    if (!mm_all_ok(comm, ok)) {
        if (!ok) fprintf(stderr, "mpimeter-bench: rank %d: --timer %s: %s\n", sc.rank, cfg->timing.timer, why);
        if (ok) mm_timer_close(&timer);
        return MM_E_FAILED;
    }
    sc.truth_known = strcmp(cfg->timing.timer, "virtual") == 0 && mm__one_clock(comm, sc.nprocs);

    int *ranks = malloc((size_t)sc.nprocs * sizeof *ranks);
    int64_t *res = malloc((size_t)sc.nprocs * sizeof *res);
    int64_t *tru = malloc((size_t)sc.nprocs * sizeof *tru);
    sc.duration_s = calloc((size_t)cfg->nclocksync, sizeof *sc.duration_s);
    sc.max_true_all = calloc((size_t)cfg->nclocksync * (size_t)cfg->check.ncheck, sizeof *sc.max_true_all);
    sc.checks = sc.rank == 0 ? calloc((size_t)cfg->nclocksync * (size_t)cfg->check.ncheck *
                                          (size_t)sc.nprocs, sizeof *sc.checks)
                             : NULL;
    ok = ranks && res && tru && sc.duration_s && sc.max_true_all && (sc.rank != 0 || sc.checks);
    int all_ok = mm_all_ok(comm, ok);
    mm_status rc = all_ok ? MM_OK : MM_E_FAILED;
    if (!all_ok && sc.rank == 0) fprintf(stderr, "mpimeter-bench: --sync-check: out of memory\n");
    why[0] = '\0';
    for (int a = 0; a < cfg->nclocksync && rc == 0; a++)
        rc = mm__check_one(&sc, a, &timer, comm, ranks, res, tru, why, sizeof why);
    /* the rank that knows why says so; rank 0 at least that a check failed */
    if (why[0] && (sc.rank == 0 || sc.failed_here))
        fprintf(stderr, "mpimeter-bench: rank %d: %s\n", sc.rank, why);
    if (rc == 0 && sc.rank == 0) {
        if (cfg->check.json)
            mm__print_json(&sc);
        else
            mm__print_table(&sc);
    }
    free(ranks);
    free(res);
    free(tru);
    free(sc.duration_s);
    free(sc.max_true_all);
    free(sc.checks);
    mm_timer_close(&timer);
    return rc;
}
