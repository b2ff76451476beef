/* SPDX-License-Identifier: BSD-3-Clause */
/* sync_check.c — `mpimeter-bench --sync-check`: how good is each clock sync, here and now?
 *
 * What: every algorithm of --clocksync, in order, opens and runs one sync; each --check-at time
 *   T of an algorithm is checked T seconds after that algorithm's own sync ended (each rank
 *   sleeping on its own clock): the residual offsets (mm_clocksync_residuals: rank 0's global
 *   clock against every rank's) and, where the truth is known, the true errors. Rank 0 prints a
 *   table, or with --json one object:
 *   {"algorithms": [{"name", "sync_duration_s", "checks": [{"t_s", "since_sync_s",
 *    "max_abs_residual_ns", "residual_ns": [per rank], "max_abs_true_error_ns",
 *    "true_error_ns": [per rank]}]}]}
 *   Per-rank arrays are indexed by rank: rank 0 is 0, ranks outside the residual sample (p > 64)
 *   are null. The true-error fields appear only when the truth is known: the `virtual` timer
 *   with all ranks on one host (they then share its base clock), under SimGrid's SMPI (its
 *   simulated hosts share one clock), or a kernel-wide timer (monotonic, monotonic-raw,
 *   realtime) that every rank reads from one kernel clock (mm_comm_one_clock: one boot id and
 *   time namespace) — then that clock is the truth, and a residual beyond the true error is the
 *   residual check's own error, which no re-sync removes. They include "max_abs_true_error_all_ns": the largest
 *   true error over every rank, not only the sample (the truth costs no messages: one gather).
 *   Residual and true error have the same sign convention (rank 0's global − the rank's): the
 *   residual is the estimate, the true error its exact value.
 * One wait for all: the algorithms do not wait for their checks in turn. The next algorithm
 *   syncs while the earlier ones wait, and the checks run in the order they fall due, so the
 *   whole takes the syncs plus the last --check-at time, not that time per algorithm. A check
 *   never interrupts a sync: one that falls due during a sync runs right after it, late; before
 *   each sync the checks due within the longest sync so far are taken first, so a check is late
 *   only while the syncs grow longer (a check at 0 s always runs right after its own sync). Each
 *   check says when it ran, since_sync_s (seconds from its algorithm's sync end to the check's
 *   start, rank 0's clock; t_s or later): what it measured is the drift over since_sync_s, which
 *   is t_s unless it was late.
 * Failures: a rank whose own MPI call failed during a check cannot know whether a peer waits for
 *   it (a ping-pong or a gather left half done), so it says why and ends the launch (MPI_Abort
 *   with the status's exit code); a failure every rank learnt (a sync's, agreed by
 *   mm_clocksync_run; the residual check out of memory) ends every rank with the status, and
 *   the ranks that know why say so (rank 0 when none does).
 * Why: every sync is verified against known truth instead of trusted (docs/ALGORITHMS.md,
 *   "Checking a sync").
 * Cost: per algorithm one sync, per check time one residual check (one offset measurement per
 *   checked rank); one broadcast per step of the schedule; the waits are sleeps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_json.h"
#include "mm_mpi.h"
#include "mm_timer.h"
#include "mm_error.h"
#include "app_output.h"

typedef struct mm__check_result {
    int have_residual; /* per rank */
    int64_t residual_ns, true_error_ns;
} mm__check_result;

typedef struct mm__sync_check {
    const mm_config *cfg;
    const mm_timer *timer;
    MPI_Comm comm;
    int rank, nprocs, truth_known;
    mm_clocksync *cs;         /* [alg]: opened when its sync is due, all closed at the end */
    int nopen;                /* algorithms opened so far (their syncs run, or failed) */
    int64_t *sync_end_ns;     /* [alg]: this rank's clock when its sync ended */
    int *next_check;          /* [alg]: its first check not taken yet */
    double *duration_s;       /* [alg] */
    double *since_sync_s;     /* [alg][check], rank 0: from its sync's end to the check */
    int64_t *max_true_all;    /* [alg][check]: over every rank */
    mm__check_result *checks; /* [alg][check][rank], rank 0 */
    int *ranks;               /* scratch of nprocs: the residual check's sample */
    int64_t *res, *tru;       /* scratch of nprocs */
    mm_mpi_error err;         /* the schedule's broadcasts */
    int failed_alg;           /* the algorithm whose step failed (-1: none, or the schedule) */
    int failed_in_sync;       /* ... in its sync (agreed by every rank), not in a check */
    char why[512];
} mm__sync_check;

/* A step of the schedule, as rank 0 broadcasts it: 2a syncs algorithm a, 2a + 1 takes its next
 * check, MM__STEP_END ends. */
enum { MM__STEP_END = -1 };

static mm__check_result *mm__at(mm__sync_check *sc, int alg, int check, int rank) {
    return &sc->checks[((size_t)alg * (size_t)sc->cfg->check.ncheck + (size_t)check) * (size_t)sc->nprocs +
                       (size_t)rank];
}

static int64_t mm__abs64(int64_t v) { return v < 0 ? -v : v; }

/* When algorithm alg's next check is due, on this rank's clock. */
static int64_t mm__due_ns(const mm__sync_check *sc, int alg) {
    return sc->sync_end_ns[alg] + (int64_t)(sc->cfg->check.check_at_s[sc->next_check[alg]] * 1e9 + 0.5);
}

/* Rank 0: the next step. The check due first, when every sync has run or it is due within the
 * longest sync so far (the next sync would make it late); else the next sync; else the end. */
static int mm__next_step(const mm__sync_check *sc) {
    int first = -1;
    double longest_s = 0;
    for (int a = 0; a < sc->nopen; a++) {
        if (sc->duration_s[a] > longest_s) longest_s = sc->duration_s[a];
        if (sc->next_check[a] < sc->cfg->check.ncheck && (first < 0 || mm__due_ns(sc, a) < mm__due_ns(sc, first)))
            first = a;
    }
    int all_synced = sc->nopen == sc->cfg->nclocksync;
    if (first >= 0 && (all_synced || mm__due_ns(sc, first) <= mm_timer_now(sc->timer) + (int64_t)(longest_s * 1e9)))
        return 2 * first + 1;
    return all_synced ? MM__STEP_END : 2 * sc->nopen;
}

/* Why a step of algorithm alg failed, into sc->why: this rank's MPI failure (cs->err), the
 * sync's records lost out of memory, the residual check out of memory (agreed: some rank), or
 * else a failure on another rank (which says why). MM_E_FAILED. */
static mm_status mm__step_failed(mm__sync_check *sc, int alg, const char *step, double at_s, int mpi_rc) {
    const mm_clocksync *cs = &sc->cs[alg];
    char what[sizeof cs->err.call + sizeof cs->err.text + 2] = "";
    if (mm_mpi_failed(&cs->err))
        mm_mpi_error_format(&cs->err, what, sizeof what);
    else if (cs->log.lost > 0)
        snprintf(what, sizeof what, "out of memory for %zu of the sync's records", cs->log.lost);
    else if (mpi_rc == MPI_ERR_NO_MEM)
        snprintf(what, sizeof what, "out of memory on some rank");
    else
        snprintf(what, sizeof what, "on another rank");
    sc->failed_alg = alg;
    if (at_s < 0)
        return mm_error_set(sc->why, sizeof sc->why, "--clocksync %s: %s failed: %s", cs->vt->name, step, what);
    return mm_error_set(sc->why, sizeof sc->why, "--clocksync %s: %s at %g s failed: %s", cs->vt->name, step, at_s,
                        what);
}

/* Collective: opens algorithm alg and runs its sync. Returns 0, or MM_E_FAILED with why
 * (after an algorithm that cannot be opened: the message on stderr). */
static mm_status mm__sync(mm__sync_check *sc, int alg) {
    const mm_config *cfg = sc->cfg;
    mm_clocksync *cs = &sc->cs[alg];
    sc->nopen++;
    sc->failed_in_sync = 1;
    if (mm_clocksync_open(cs, cfg->clocksync[alg], sc->comm, sc->timer, &cfg->cs.params) != 0) {
        if (sc->rank == 0)
            fprintf(stderr, "mpimeter-bench: --clocksync: cannot open '%s'; allowed: %s\n", cfg->clocksync[alg],
                    mm_clocksync_names());
        sc->failed_alg = alg;
        return MM_E_FAILED;
    }
    if (mm_clocksync_run(cs) != MM_OK) return mm__step_failed(sc, alg, "the sync", -1, MPI_SUCCESS);
    sc->sync_end_ns[alg] = mm_timer_now(sc->timer);
    sc->duration_s[alg] = cs->duration_s;
    return MM_OK;
}

/* Collective: the largest true error over every rank. Returns MPI_SUCCESS or an MPI code. */
static int mm__true_all(mm__sync_check *sc, int alg, int check) {
    int rc = mm_clocksync_true_errors(&sc->cs[alg], sc->rank == 0 ? sc->tru : NULL);
    if (rc != MPI_SUCCESS || sc->rank != 0) return rc;
    int64_t *m = &sc->max_true_all[alg * sc->cfg->check.ncheck + check];
    for (int r = 0; r < sc->nprocs; r++)
        if (mm__abs64(sc->tru[r]) > *m) *m = mm__abs64(sc->tru[r]);
    return MPI_SUCCESS;
}

/* Collective: algorithm alg's next check, at its time. Returns 0, or MM_E_FAILED with why. */
static mm_status mm__check(mm__sync_check *sc, int alg) {
    int c = sc->next_check[alg]++;
    double at_s = sc->cfg->check.check_at_s[c];
    mm_timer_sleep_until(sc->timer, sc->sync_end_ns[alg] + (int64_t)(at_s * 1e9 + 0.5));
    int64_t began = mm_timer_now(sc->timer);
    sc->failed_in_sync = 0;
    /* the truth first: the residual check takes a while (a ping-pong per sampled rank), and
     * offset-only models drift meanwhile */
    int rc = sc->truth_known ? mm__true_all(sc, alg, c) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS) return mm__step_failed(sc, alg, "the true errors", at_s, rc);
    int n = 0;
    rc = mm_clocksync_residuals(&sc->cs[alg], c == 0 ? -1 : -2, sc->ranks, sc->res, sc->tru, &n);
    if (rc != MPI_SUCCESS) return mm__step_failed(sc, alg, "the residuals", at_s, rc);
    if (sc->rank != 0) return MM_OK;
    sc->since_sync_s[alg * sc->cfg->check.ncheck + c] = (double)(began - sc->sync_end_ns[alg]) * 1e-9;
    mm__at(sc, alg, c, 0)->have_residual = 1; /* rank 0 against itself: 0 by definition */
    for (int i = 0; i < n; i++) {
        mm__check_result *r = mm__at(sc, alg, c, sc->ranks[i]);
        r->have_residual = 1;
        r->residual_ns = sc->res[i];
        r->true_error_ns = sc->tru[i];
    }
    return MM_OK;
}

/* Collective: the schedule (mm__next_step, rank 0's choice broadcast) until its end or a failed
 * step. Returns 0, or MM_E_FAILED with why. */
static mm_status mm__run_schedule(mm__sync_check *sc) {
    for (;;) {
        int step = sc->rank == 0 ? mm__next_step(sc) : MM__STEP_END;
        if (MM_MPI(&sc->err, MPI_Bcast(&step, 1, MPI_INT, 0, sc->comm)) != MPI_SUCCESS) {
            char what[sizeof sc->err.call + sizeof sc->err.text + 2];
            mm_mpi_error_format(&sc->err, what, sizeof what);
            return mm_error_set(sc->why, sizeof sc->why, "--sync-check: the schedule failed: %s", what);
        }
        if (step == MM__STEP_END) return MM_OK;
        mm_status rc = step % 2 == 0 ? mm__sync(sc, step / 2) : mm__check(sc, step / 2);
        if (rc != MM_OK) return rc;
    }
}

/* After a failed schedule (rc): a rank whose own MPI call failed in a check or the schedule says
 * why and ends the launch, since peers may wait for it; after a failure every rank learnt, the
 * ranks that know why say so, rank 0 when none does. Returns rc. */
static mm_status mm__end_failed(mm__sync_check *sc, mm_status rc) {
    const mm_clocksync *cs = sc->failed_alg >= 0 ? &sc->cs[sc->failed_alg] : NULL;
    int knows = cs && (mm_mpi_failed(&cs->err) || cs->log.lost > 0);
    if (mm_mpi_failed(&sc->err) || (cs && !sc->failed_in_sync && mm_mpi_failed(&cs->err))) {
        fprintf(stderr, "mpimeter-bench: rank %d: %s\n", sc->rank, sc->why);
        mm_abort_after_line(sc->comm, mm_exit_code(rc));
    }
    int nobody_knows = mm_all_ok(sc->comm, !knows);
    if (sc->why[0] && (knows || (nobody_knows && sc->rank == 0)))
        fprintf(stderr, "mpimeter-bench: rank %d: %s\n", sc->rank, sc->why);
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
            mm_json_kv_double(&j, "since_sync_s", sc->since_sync_s[a * cfg->check.ncheck + c]);
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
    printf("\nresidual = rank 0's global clock minus the rank's, measured by ping-pong (ns)%s;\n"
           "since_s = seconds from the sync's end to the check (t_s, or later when another sync ran then)\n\n",
           sc->truth_known ? "; true error = its exact value from the one clock every rank reads" : "");
    printf("%-10s %10s %7s %9s %14s", "algorithm", "sync_s", "t_s", "since_s", "max|residual|");
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
            printf(" %7g %9.3f %14lld", cfg->check.check_at_s[c], sc->since_sync_s[a * cfg->check.ncheck + c],
                   (long long)max_res);
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

/* 1 when the timer is kernel-wide and every rank reads it from one kernel clock: the clock is
 * then the truth itself (mm_timer_truth_ns is the reading). Collective on every rank alike. */
static int mm__one_kernel_clock(mm__sync_check *sc, int kernel_wide) {
    int one = 0;
    if (!mm_all_ok(sc->comm, kernel_wide)) return 0;
    return mm_comm_one_clock(sc->comm, &one, NULL) == MPI_SUCCESS && mm_all_ok(sc->comm, one);
}

/* Allocates the state's arrays (every rank agrees). 0, or MM_E_FAILED with why. */
static mm_status mm__alloc(mm__sync_check *sc) {
    size_t nalg = (size_t)sc->cfg->nclocksync, nchecks = nalg * (size_t)sc->cfg->check.ncheck,
           np = (size_t)sc->nprocs;
    sc->cs = calloc(nalg, sizeof *sc->cs);
    sc->sync_end_ns = calloc(nalg, sizeof *sc->sync_end_ns);
    sc->next_check = calloc(nalg, sizeof *sc->next_check);
    sc->duration_s = calloc(nalg, sizeof *sc->duration_s);
    sc->since_sync_s = calloc(nchecks, sizeof *sc->since_sync_s);
    sc->max_true_all = calloc(nchecks, sizeof *sc->max_true_all);
    sc->checks = sc->rank == 0 ? calloc(nchecks * np, sizeof *sc->checks) : NULL;
    sc->ranks = malloc(np * sizeof *sc->ranks);
    sc->res = malloc(np * sizeof *sc->res);
    sc->tru = malloc(np * sizeof *sc->tru);
    int ok = sc->cs && sc->sync_end_ns && sc->next_check && sc->duration_s && sc->since_sync_s &&
             sc->max_true_all && (sc->rank != 0 || sc->checks) && sc->ranks && sc->res && sc->tru;
    if (mm_all_ok(sc->comm, ok)) return MM_OK;
    return mm_error_set(sc->why, sizeof sc->why, "--sync-check: out of memory");
}

static void mm__free(mm__sync_check *sc) {
    for (int a = 0; sc->cs && a < sc->nopen; a++) mm_clocksync_close(&sc->cs[a]);
    free(sc->cs);
    free(sc->sync_end_ns);
    free(sc->next_check);
    free(sc->duration_s);
    free(sc->since_sync_s);
    free(sc->max_true_all);
    free(sc->checks);
    free(sc->ranks);
    free(sc->res);
    free(sc->tru);
}

mm_status mm_sync_check_run(const mm_config *cfg, MPI_Comm comm) {
    mm__sync_check sc;
    memset(&sc, 0, sizeof sc);
    sc.cfg = cfg;
    sc.comm = comm;
    sc.failed_alg = -1;
    mm_mpi_error_clear(&sc.err);
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
    sc.timer = &timer;
    sc.truth_known = strcmp(cfg->timing.timer, "virtual") == 0 ? mm__one_clock(comm, sc.nprocs)
                                                                : mm__one_kernel_clock(&sc, timer.vt->kernel_wide);
    mm_status rc = mm__alloc(&sc);
    if (rc != MM_OK && sc.rank == 0)
        fprintf(stderr, "mpimeter-bench: %s\n", sc.why);
    else if (rc == MM_OK && (rc = mm__run_schedule(&sc)) != MM_OK)
        rc = mm__end_failed(&sc, rc);
    if (rc == MM_OK && sc.rank == 0) {
        if (cfg->check.json)
            mm__print_json(&sc);
        else
            mm__print_table(&sc);
    }
    mm__free(&sc);
    mm_timer_close(&timer);
    return rc;
}
