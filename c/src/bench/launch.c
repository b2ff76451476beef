/* launch.c — one launch (one call to mpirun) from start to end: timer, clock sync, the shuffled
 * plan, every test under the process sync, and the launch folder written after each test
 * (raw rows first, then meta.json atomically), so that a launch killed midway leaves a folder
 * that says which tests finished. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <sched.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_output.h"

#define MM__MAX_TESTS (MM_MAX_OPS * MM_MAX_SIZES)
#define MM__MAX_WARNINGS 16

/* What rank 0 keeps across tests. */
typedef struct mm__launch_state {
    const mm_config *cfg;
    MPI_Comm comm;
    int rank, nprocs;
    mm_timer timer;
    mm_clocksync cs;
    mm_procsync ps;
    mm_provenance prov;
    mm_test *tests;
    int ntests;
    int64_t epoch_ns;
    int64_t start_local_ns;
    mm_outdir out;
    size_t sync_written;
    /* gathered on rank 0 */
    mm_clock_model *models;
    int *parents;
    int64_t *virtual_offsets_ns;
    double *virtual_skews_ppm;
    int *res_ranks[2];
    int64_t *res_ns[2];
    int nres[2];
    char sync_warning[512];
    char warning_text[MM__MAX_WARNINGS][512];
    const char *warnings[MM__MAX_WARNINGS];
    int nwarnings;
    int budget_warning;    /* index of the warning about tests the time budget ended, or -1 */
    int nbudget_ended;     /* tests ended by the time budget */
    char budget_tests[256]; /* the first of them, "allreduce 8 (1 of 5), ..." */
    int overwrite_warning;  /* index of the warning about a --cold-cache overwrite longer than
                               the given window, or -1 */
    int64_t overwrite_over_window_ns; /* the longest such overwrite seen */
    double fastest_median_ns; /* smallest per-test median run time, for the residual check */
} mm__launch_state;

static void mm__warn(mm__launch_state *st, const char *fmt, const char *arg) {
    if (st->nwarnings >= MM__MAX_WARNINGS) return;
    snprintf(st->warning_text[st->nwarnings], sizeof st->warning_text[0], fmt, arg);
    st->warnings[st->nwarnings] = st->warning_text[st->nwarnings];
    st->nwarnings++;
}

/* The text of a launch warning that is rewritten as a launch goes on (*index: its slot, -1
 * until it has one), or NULL when every slot is taken. */
static char *mm__rewritable_warning(mm__launch_state *st, int *index) {
    if (*index < 0) {
        if (st->nwarnings >= MM__MAX_WARNINGS) return NULL;
        *index = st->nwarnings++;
        st->warnings[*index] = st->warning_text[*index];
    }
    return st->warning_text[*index];
}

/* Rank 0: a test that the roundtime/harmonize time budget ended before --nrep gets counted in
 * one launch warning (rewritten as more such tests come), so that nothing reads the launch as
 * having measured what was asked. */
static void mm__note_budget_ended(mm__launch_state *st, const mm_test *t) {
    if (st->rank != 0 || !t->ended_by_budget) return;
    char *text = mm__rewritable_warning(st, &st->budget_warning);
    if (!text) return;
    st->nbudget_ended++;
    size_t used = strlen(st->budget_tests);
    char item[96];
    snprintf(item, sizeof item, "%s%s %" PRId64 " (%ld of %ld)", used ? ", " : "", t->op->name,
             t->size, t->nrep, t->nrep_asked);
    int cut = strstr(st->budget_tests, ", ...") != NULL; /* nothing goes after the ellipsis */
    if (!cut && used + strlen(item) + 8 < sizeof st->budget_tests)
        snprintf(st->budget_tests + used, sizeof st->budget_tests - used, "%s", item);
    else if (!cut)
        snprintf(st->budget_tests + used, sizeof st->budget_tests - used, ", ...");
    snprintf(text, sizeof st->warning_text[0],
             "%d test(s) ended by the time budget (--roundtime-budget-s %g per test) before "
             "--nrep %d repetitions: %s; they rest on fewer repetitions than asked: raise "
             "--roundtime-budget-s or lower --nrep",
             st->nbudget_ended, st->cfg->roundtime_budget_s, st->cfg->nrep, st->budget_tests);
}

/* Rank 0: a window given with --window-us is not sized from a pilot, so it may leave no room for
 * the --cold-cache overwrite after each repetition; then nearly every repetition starts late.
 * The window process sync times the overwrite before each test (ps.between_reps_over_window_ns);
 * one launch warning, with the longest time seen, gives the invalid repetitions their reason. */
static void mm__note_overwrite_beyond_window(mm__launch_state *st) {
    int64_t took_ns = st->ps.between_reps_over_window_ns;
    if (st->rank != 0 || took_ns <= st->overwrite_over_window_ns) return;
    char *text = mm__rewritable_warning(st, &st->overwrite_warning);
    if (!text) return;
    st->overwrite_over_window_ns = took_ns;
    snprintf(text, sizeof st->warning_text[0],
             "the --cold-cache overwrite of %" PRId64 " bytes after each repetition takes up to "
             "%.1f us, longer than --window-us %g: most repetitions start late (invalid); raise "
             "--window-us above it or use --window-us auto (its pilot leaves room for the "
             "overwrite)",
             st->cfg->cold_cache_bytes, (double)took_ns * 1e-3, st->cfg->window_us);
}

static double mm__seconds_since(const mm__launch_state *st) {
    return (double)(mm_timer_now(&st->timer) - st->start_local_ns) * 1e-9;
}

/* Rank 0: renders and atomically writes meta.json with the given status. */
static int mm__write_meta(mm__launch_state *st, const char *status) {
    if (st->rank != 0) return 0;
    mm_launch l = {0};
    l.cfg = st->cfg;
    l.nprocs = st->nprocs;
    l.status = status;
    l.timer = &st->timer;
    l.cs = &st->cs;
    l.ps = &st->ps;
    l.prov = &st->prov;
    l.tests = st->tests;
    l.ntests = st->ntests;
    l.epoch_local_ns_rank0 = st->epoch_ns;
    l.nresidual_start = st->nres[0];
    l.nresidual_end = st->nres[1];
    l.residual_ranks_start = st->res_ranks[0];
    l.residual_ranks_end = st->res_ranks[1];
    l.residual_start_ns = st->res_ns[0];
    l.residual_end_ns = st->res_ns[1];
    l.sync_warning = st->sync_warning[0] ? st->sync_warning : NULL;
    l.models = st->models;
    l.parents = st->parents;
    l.virtual_offsets_ns = st->virtual_offsets_ns;
    l.virtual_skews_ppm = st->virtual_skews_ppm;
    l.warnings = st->warnings;
    l.nwarnings = st->nwarnings;
    mm_buf meta = {0};
    mm_meta_render(&l, &meta);
    int rc = mm_outdir_write_meta(&st->out, &meta);
    mm_buf_free(&meta);
    return rc;
}

/* Collective: gathers each rank's clock model and parent (after every sync). */
static void mm__gather_models(mm__launch_state *st) {
    double mine[3] = {(double)st->cs.model.anchor_ns, st->cs.model.slope, st->cs.model.intercept_ns};
    double *all = st->rank == 0 ? malloc((size_t)st->nprocs * 3 * sizeof(double)) : NULL;
    MPI_Gather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, st->comm);
    /* the anchor is an int64: send it exactly, not through a double */
    int64_t anchor = st->cs.model.anchor_ns;
    int64_t *anchors = st->rank == 0 ? malloc((size_t)st->nprocs * sizeof(int64_t)) : NULL;
    MPI_Gather(&anchor, 1, MPI_INT64_T, anchors, 1, MPI_INT64_T, 0, st->comm);
    MPI_Gather(&st->cs.parent, 1, MPI_INT, st->parents, 1, MPI_INT, 0, st->comm);
    if (st->rank == 0) {
        for (int r = 0; r < st->nprocs; r++) {
            st->models[r].anchor_ns = anchors[r];
            st->models[r].slope = all[3 * r + 1];
            st->models[r].intercept_ns = all[3 * r + 2];
        }
    }
    free(all);
    free(anchors);
}

/* Collective: one clock sync (initial or re-sync), its log and models recorded. */
static int mm__sync(mm__launch_state *st) {
    if (mm_clocksync_run(&st->cs) != 0) return -1;
    mm__gather_models(st);
    return mm_collect_sync_log(&st->cs.log, &st->sync_written, st->rank == 0 ? st->out.sync : NULL,
                               st->epoch_ns, st->comm);
}

/* Collective: residual offsets (global vs global) measured by rank 0; which = 0 start, 1 end. */
static void mm__residuals(mm__launch_state *st, int which) {
    int n = 0;
    mm_clocksync_residuals(&st->cs, which == 0 ? -1 : -2, st->res_ranks[which], st->res_ns[which],
                           NULL, &n);
    st->nres[which] = st->rank == 0 ? n : 0;
    mm_collect_sync_log(&st->cs.log, &st->sync_written, st->rank == 0 ? st->out.sync : NULL,
                        st->epoch_ns, st->comm);
}


/* Rank 0: per-test bookkeeping from the gathered rows: repetitions invalid on some rank, and the
 * median run time (global when the process sync uses the global clock, else max local). */
static void mm__summarize_test(mm__launch_state *st, mm_test *t, long nrep, const int64_t *start,
                               const int64_t *end, const int64_t *gstart, const int64_t *gend,
                               const int32_t *invalid, int64_t *scratch) {
    long ninvalid = 0, nvalid = 0;
    int global = st->ps.vt->needs_global_clock;
    for (long rep = 0; rep < nrep; rep++) {
        int bad = 0;
        int64_t lo = INT64_MAX, hi = INT64_MIN, dmax = 0;
        for (int r = 0; r < st->nprocs; r++) {
            long i = (long)r * nrep + rep;
            bad |= invalid[i] != 0;
            if (gstart[i] < lo) lo = gstart[i];
            if (gend[i] > hi) hi = gend[i];
            if (end[i] - start[i] > dmax) dmax = end[i] - start[i];
        }
        ninvalid += bad;
        if (!bad) scratch[nvalid++] = global ? hi - lo : dmax;
    }
    t->invalid = ninvalid;
    if (nvalid > 0 && !(t->op->flags & MM_OP_SIZE_IS_DURATION && t->size == 0)) {
        qsort(scratch, (size_t)nvalid, sizeof scratch[0], mm_cmp_i64);
        double median = (double)scratch[nvalid / 2];
        if (st->fastest_median_ns <= 0 || median < st->fastest_median_ns) st->fastest_median_ns = median;
    }
}

/* Fills the arguments an operation needs; the op's setup allocates its buffers. */
static int mm__prepare_args(const mm__launch_state *st, const mm_test *t, mm_op_args *args) {
    memset(args, 0, sizeof *args);
    args->comm = st->comm;
    args->rank = st->rank;
    args->nprocs = st->nprocs;
    args->root = st->cfg->root;
    mm_datatype_lookup(st->cfg->datatype, &args->datatype, &args->type_size);
    mm_reduce_op_lookup(st->cfg->reduce_op, &args->reduce_op);
    args->size = t->size;
    args->count = (t->op->flags & MM_OP_SIZE_IS_DURATION) ? 0 : (int)(t->size / args->type_size);
    args->timer = &st->timer;
    return t->op->setup(args);
}

static int mm__all_ok(MPI_Comm comm, int ok) {
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    return all;
}

/* What mm__run_tests allocates for the repetitions: every rank's mm_rep_buffers, and on rank 0
 * every rank's arrays gathered plus the scratch of the median. */
int64_t mm_rep_arrays_bytes(long nrep, int rank, int nprocs) {
    const int64_t per_rep = 4 * sizeof(int64_t) + sizeof(int32_t); /* start end gstart gend flags */
    int64_t bytes = (int64_t)nrep * per_rep;
    if (rank == 0) bytes += (int64_t)nprocs * nrep * per_rep + (int64_t)nrep * sizeof(int64_t);
    return bytes;
}

static int mm__run_tests(mm__launch_state *st) {
    const mm_config *cfg = st->cfg;
    long nrep = cfg->nrep;
    mm_rep_buffers b;
    int ok = mm_rep_buffers_alloc(&b, nrep) == 0;
    size_t n_all = st->rank == 0 ? (size_t)st->nprocs * (size_t)nrep : 0;
    int64_t *all_start = NULL, *all_end = NULL, *all_gstart = NULL, *all_gend = NULL, *scratch = NULL;
    int32_t *all_invalid = NULL;
    if (st->rank == 0) {
        all_start = malloc(n_all * sizeof(int64_t));
        all_end = malloc(n_all * sizeof(int64_t));
        all_gstart = malloc(n_all * sizeof(int64_t));
        all_gend = malloc(n_all * sizeof(int64_t));
        all_invalid = malloc(n_all * sizeof(int32_t));
        scratch = malloc((size_t)nrep * sizeof(int64_t));
        ok = ok && all_start && all_end && all_gstart && all_gend && all_invalid && scratch;
    }
    void *cold = NULL;
    if (cfg->cold_cache_bytes > 0) {
        cold = calloc(1, (size_t)cfg->cold_cache_bytes);
        ok = ok && cold;
    }
    int rc = 0;
    if (!mm__all_ok(st->comm, ok)) {
        if (st->rank == 0) fprintf(stderr, "mpimeter-bench: out of memory for %ld repetitions\n", nrep);
        rc = 1;
        goto done;
    }
    double resync_s = mm_config_effective_resync_s(cfg, st->cs.vt->model_kind);
    int has_global = strcmp(st->cs.vt->name, "none") != 0 || st->ps.vt->needs_global_clock;

    for (int i = 0; i < st->ntests; i++) {
        mm_test *t = &st->tests[i];
        /* Re-sync between tests when the last sync is too old (rank 0 decides for all). */
        int resync = 0;
        if (resync_s > 0 && st->rank == 0 &&
            (double)(mm_timer_now(&st->timer) - st->cs.last_sync_local_ns) * 1e-9 > resync_s)
            resync = 1;
        MPI_Bcast(&resync, 1, MPI_INT, 0, st->comm);
        if (resync && mm__sync(st) != 0) { rc = 1; break; }

        mm_op_args args;
        if (!mm__all_ok(st->comm, mm__prepare_args(st, t, &args) == 0)) {
            if (st->rank == 0)
                fprintf(stderr, "mpimeter-bench: cannot allocate buffers for %s at %" PRId64 " bytes\n",
                        t->op->name, t->size);
            t->op->teardown(&args);
            rc = 1;
            break;
        }
        t->status = MM_TEST_RUNNING;
        t->started_s = mm__seconds_since(st);
        int mpi_rc = mm_bench_run_test(cfg, t, &args, &st->ps, &b, cold, (size_t)cfg->cold_cache_bytes);
        t->op->teardown(&args);
        if (!mm__all_ok(st->comm, mpi_rc == MPI_SUCCESS)) { rc = 1; break; }
        t->duration_s = mm__seconds_since(st) - t->started_s;
        mm__note_budget_ended(st, t);
        mm__note_overwrite_beyond_window(st);

        int cnt = (int)t->nrep; /* the same on every rank */
        MPI_Gather(b.start_ns, cnt, MPI_INT64_T, all_start, cnt, MPI_INT64_T, 0, st->comm);
        MPI_Gather(b.end_ns, cnt, MPI_INT64_T, all_end, cnt, MPI_INT64_T, 0, st->comm);
        MPI_Gather(b.gstart_ns, cnt, MPI_INT64_T, all_gstart, cnt, MPI_INT64_T, 0, st->comm);
        MPI_Gather(b.gend_ns, cnt, MPI_INT64_T, all_gend, cnt, MPI_INT64_T, 0, st->comm);
        MPI_Gather(b.invalid, cnt, MPI_INT32_T, all_invalid, cnt, MPI_INT32_T, 0, st->comm);
        int write_ok = 1;
        if (st->rank == 0) {
            mm__summarize_test(st, t, cnt, all_start, all_end, all_gstart, all_gend, all_invalid, scratch);
            write_ok = mm_raw_write_test(st->out.raw, t, st->nprocs, cnt, all_start, all_end, all_gstart,
                                         all_gend, all_invalid, st->epoch_ns, has_global,
                                         cfg->raw_reduced) == 0;
            t->status = MM_TEST_COMPLETE;
            write_ok = write_ok && mm__write_meta(st, "running") == 0;
            if (!write_ok) fprintf(stderr, "mpimeter-bench: cannot write to %s\n", cfg->out);
        }
        if (!mm__all_ok(st->comm, write_ok)) { rc = 1; break; }
    }
done:
    mm_rep_buffers_free(&b);
    free(all_start);
    free(all_end);
    free(all_gstart);
    free(all_gend);
    free(all_invalid);
    free(scratch);
    free(cold);
    return rc;
}

/* Rank 0: after the launch, is the sync good enough for what was measured? */
static void mm__check_sync_quality(mm__launch_state *st) {
    if (st->rank != 0 || strcmp(st->cs.vt->name, "none") == 0) return;
    int64_t worst = 0;
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < st->nres[w]; i++)
            if (llabs(st->res_ns[w][i]) > worst) worst = llabs(st->res_ns[w][i]);
    if (st->fastest_median_ns > 0 && (double)worst > 0.1 * st->fastest_median_ns) {
        snprintf(st->sync_warning, sizeof st->sync_warning,
                 "clock-sync residual up to %" PRId64 " ns exceeds a tenth of the fastest test's median "
                 "run time (%.0f ns): global run times of the fastest tests are not trustworthy",
                 worst, st->fastest_median_ns);
        mm__warn(st, "%s", st->sync_warning);
    }
}

/* Collective: more ranks on this host than CPUs they may run on? Then waiting must yield. */
static int mm__oversubscribed(MPI_Comm comm, int *ranks_here, int *cpus_here) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, ranks_here);
    /* the CPUs the ranks of this host may run on: the union of their affinity masks */
    cpu_set_t mine, all;
    CPU_ZERO(&mine);
    CPU_ZERO(&all);
    if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_ZERO(&mine);
    MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_UNSIGNED_CHAR, MPI_BOR, node);
    *cpus_here = CPU_COUNT(&all);
    MPI_Comm_free(&node);
    int over = *cpus_here > 0 && *ranks_here > *cpus_here, any = 0;
    MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_LOR, comm);
    return any;
}

static int mm__open_modules(mm__launch_state *st) {
    const mm_config *cfg = st->cfg;
    char why[512] = "";
    mm_virtual_params vp;
    mm_config_virtual_params(cfg, st->rank, &vp);
    int ok = mm_timer_open(&st->timer, cfg->timer, &vp, why, sizeof why) == 0;
    if (!mm__all_ok(st->comm, ok)) {
        if (!ok) fprintf(stderr, "mpimeter-bench: rank %d: --timer %s: %s\n", st->rank, cfg->timer, why);
        return -1;
    }
    int ranks_here = 0, cpus_here = 0;
    if (mm__oversubscribed(st->comm, &ranks_here, &cpus_here)) {
        st->timer.yield_while_waiting = 1;
        char text[160];
        snprintf(text, sizeof text, "%d ranks share %d CPUs on a host (oversubscribed)", ranks_here, cpus_here);
        mm__warn(st, "%s: waiting yields the CPU, and run times include time other ranks held it", text);
    }
    ok = mm_clocksync_open(&st->cs, cfg->clocksync[0], st->comm, &st->timer, &cfg->cs_params) == 0 &&
         mm_procsync_open(&st->ps, cfg->procsync, st->comm, &st->timer, &st->cs, cfg) == 0;
    return mm__all_ok(st->comm, ok) ? 0 : -1;
}

int mm_launch_run(const mm_config *cfg, MPI_Comm comm) {
    /* Refused before anything is allocated or written: buffers that cannot fit in memory. */
    char why[2048] = "";
    if (mm_memory_check(cfg, comm, why, sizeof why) != 0) {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        if (rank == 0) fprintf(stderr, "mpimeter-bench: %s\n", why);
        return 2;
    }
    mm__launch_state *st = calloc(1, sizeof *st);
    mm_test *tests = calloc(MM__MAX_TESTS, sizeof *tests);
    if (!st || !tests) {
        free(st);
        free(tests);
        return 1;
    }
    st->cfg = cfg;
    st->comm = comm;
    MPI_Comm_rank(comm, &st->rank);
    MPI_Comm_size(comm, &st->nprocs);
    st->tests = tests;
    if (st->rank == 0) {
        st->models = calloc((size_t)st->nprocs, sizeof *st->models);
        st->parents = calloc((size_t)st->nprocs, sizeof *st->parents);
        for (int w = 0; w < 2; w++) {
            st->res_ranks[w] = calloc((size_t)st->nprocs, sizeof(int));
            st->res_ns[w] = calloc((size_t)st->nprocs, sizeof(int64_t));
        }
    }
    st->nres[0] = st->nres[1] = -1;
    st->budget_warning = -1;
    st->overwrite_warning = -1;
    int rc = 1;
    if (mm__open_modules(st) != 0) goto out;

    if (strcmp(cfg->timer, "virtual") == 0) {
        if (st->rank == 0) {
            st->virtual_offsets_ns = calloc((size_t)st->nprocs, sizeof(int64_t));
            st->virtual_skews_ppm = calloc((size_t)st->nprocs, sizeof(double));
        }
        MPI_Gather(&st->timer.virtual_offset_ns, 1, MPI_INT64_T, st->virtual_offsets_ns, 1, MPI_INT64_T, 0, comm);
        MPI_Gather(&st->timer.virtual_skew_ppm, 1, MPI_DOUBLE, st->virtual_skews_ppm, 1, MPI_DOUBLE, 0, comm);
    }
    if (st->ps.vt->needs_global_clock && strcmp(st->cs.vt->name, "none") == 0)
        mm__warn(st, "%s", "--clocksync none with a process sync that needs a global clock: correct only "
                           "when all ranks share one clock (one host)");

    /* The launch epoch: rank 0's local time now, subtracted by everyone from every timestamp. */
    st->epoch_ns = mm_timer_now(&st->timer);
    MPI_Bcast(&st->epoch_ns, 1, MPI_INT64_T, 0, comm);
    st->start_local_ns = mm_timer_now(&st->timer);
    mm_provenance_collect(&st->prov, comm);

    st->ntests = mm_plan_build(cfg, tests, MM__MAX_TESTS);
    mm_plan_shuffle(tests, st->ntests, cfg->seed);

    char err[1024] = "";
    int ok = 1;
    if (st->rank == 0) {
        ok = mm_outdir_open(&st->out, cfg->out, err, sizeof err) == 0;
        if (!ok) fprintf(stderr, "mpimeter-bench: %s\n", err);
        else ok = mm__write_meta(st, "running") == 0;
    }
    if (!mm__all_ok(comm, ok)) goto out;

    if (mm__sync(st) != 0) goto out;
    mm__residuals(st, 0);
    if (mm__write_meta(st, "running") != 0) goto out;

    rc = mm__run_tests(st);

    mm__residuals(st, 1);
    mm__check_sync_quality(st);
    /* With re-syncs on, a last sync at the end brackets every timestamp between two sync
     * points, so the after-the-fact clock interpolates instead of extrapolating (CLOCKSYNC.md:
     * offsets taken at initialization and finalization, as trace tools do). */
    if (rc == 0 && mm_config_effective_resync_s(cfg, st->cs.vt->model_kind) > 0 && mm__sync(st) != 0)
        rc = 1;
    mm_provenance_finish(&st->prov, comm);
    if (mm__write_meta(st, rc == 0 ? "complete" : "failed") != 0) rc = 1;
    if (st->rank == 0 && rc == 0) printf("mpimeter-bench: wrote %s (%d tests)\n", cfg->out, st->ntests);
out:
    if (st->rank == 0) mm_outdir_close(&st->out);
    mm_procsync_close(&st->ps);
    mm_clocksync_close(&st->cs);
    mm_timer_close(&st->timer);
    mm_provenance_free(&st->prov);
    free(st->models);
    free(st->parents);
    free(st->virtual_offsets_ns);
    free(st->virtual_skews_ppm);
    for (int w = 0; w < 2; w++) {
        free(st->res_ranks[w]);
        free(st->res_ns[w]);
    }
    free(tests);
    free(st);
    return rc;
}
