/* meta_writer.c — renders meta.json (docs/FORMAT.md) from an mm_launch.
 *
 * What: one pretty-printed JSON object, "schema_version" first, then the tool, status, argv,
 * the full resolved configuration, MPI library and build, system, rank placement, environment,
 * machine load, timer, clock sync quality, process sync counts, per-test status and warnings.
 * Every key is always present; what is not known (yet) is null — a NULL pointer in the
 * mm_launch (no residuals measured yet, no virtual timer, provenance not collected) gives null,
 * never a crash.
 * Why: the launch folder must be self-describing and versioned (Hoefler & Belli 2015, rule 9:
 * document the set-up so that results can be interpreted and reproduced); it is rewritten
 * after every test, so its status and the tests' statuses say which raw.csv rows are complete.
 * Cost: linear in nprocs + number of tests; called once per test. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mm_output.h"

#include "build_info.h"

/* A string, or null when it is NULL or empty. */
static void mm__kv_text(mm_json *j, const char *k, const char *v) {
    mm_json_key(j, k);
    if (v && *v)
        mm_json_string(j, v);
    else
        mm_json_null(j);
}

/* A double when known, else null. */
static void mm__kv_double_if(mm_json *j, const char *k, int known, double v) {
    mm_json_key(j, k);
    if (known)
        mm_json_double(j, v);
    else
        mm_json_null(j);
}

/* A double, or null when it is not positive (0 = "not applicable" in our structs). */
static void mm__kv_positive(mm_json *j, const char *k, double v) {
    mm_json_key(j, k);
    if (v > 0)
        mm_json_double(j, v);
    else
        mm_json_null(j);
}

static void mm__int_array(mm_json *j, const int *v, int n) {
    mm_json_begin_array(j);
    for (int i = 0; i < n; i++) mm_json_int(j, v[i]);
    mm_json_end_array(j);
}

static void mm__i64_array(mm_json *j, const int64_t *v, int n) {
    mm_json_begin_array(j);
    for (int i = 0; i < n; i++) mm_json_int(j, v[i]);
    mm_json_end_array(j);
}

static void mm__double_array(mm_json *j, const double *v, int n) {
    mm_json_begin_array(j);
    for (int i = 0; i < n; i++) mm_json_double(j, v[i]);
    mm_json_end_array(j);
}

/* Words separated by spaces or commas ("constant_tsc nonstop_tsc") as a JSON array. */
static void mm__word_array(mm_json *j, const char *words) {
    mm_json_begin_array(j);
    const char *p = words ? words : "";
    while (*p) {
        p += strspn(p, " ,\t\n");
        size_t n = strcspn(p, " ,\t\n");
        if (n == 0) break;
        char w[128];
        snprintf(w, sizeof w, "%.*s", (int)(n < sizeof w ? n : sizeof w - 1), p);
        mm_json_string(j, w);
        p += n;
    }
    mm_json_end_array(j);
}

/* A CPU list "0-1,3" as [0, 1, 3]. Stops at the first malformed item. */
static void mm__cpu_list_array(mm_json *j, const char *list) {
    mm_json_begin_array(j);
    const char *p = list ? list : "";
    while (*p) {
        char *e;
        long a = strtol(p, &e, 10), b;
        if (e == p || a < 0) break;
        p = e;
        b = a;
        if (*p == '-') {
            b = strtol(p + 1, &e, 10);
            if (e == p + 1 || b < a || b - a > 65536) break;
            p = e;
        }
        for (long c = a; c <= b; c++) mm_json_int(j, c);
        if (*p != ',') break;
        p++;
    }
    mm_json_end_array(j);
}

static const char *mm__test_status_word(int status) {
    switch (status) {
    case MM_TEST_PENDING: return "pending";
    case MM_TEST_RUNNING: return "running";
    case MM_TEST_COMPLETE: return "complete";
    default: return NULL;
    }
}

static void mm__render_config(mm_json *j, const mm_config *c, const mm_clocksync *cs) {
    mm_json_begin_object(j);
    mm_json_key(j, "ops");
    mm_json_begin_array(j);
    for (int i = 0; i < c->nops && i < MM_MAX_OPS; i++) mm_json_string(j, c->ops[i]);
    mm_json_end_array(j);
    mm_json_key(j, "sizes");
    mm__i64_array(j, c->sizes, c->nsizes < MM_MAX_SIZES ? c->nsizes : MM_MAX_SIZES);
    mm_json_kv_int(j, "nrep", c->nrep);
    mm_json_kv_int(j, "warmup", c->warmup);
    mm_json_kv_string(j, "timer", c->timer);
    mm_json_key(j, "clocksync");
    if (c->nclocksync > 0)
        mm_json_string(j, c->clocksync[0]);
    else
        mm_json_null(j);
    mm_json_kv_string(j, "procsync", c->procsync);
    mm__kv_positive(j, "window_us", c->window_us); /* 0 = derived from a pilot */
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, c->seed); /* unsigned: above 2^63 too */
    mm_json_key(j, "seed");
    mm_json_raw(j, seed);
    mm_json_kv_int(j, "cold_cache_bytes", c->cold_cache_bytes);
    mm_json_kv_int(j, "root", c->root);
    mm_json_kv_string(j, "datatype", c->datatype);
    mm_json_kv_string(j, "reduce_op", c->reduce_op);
    mm_json_kv_string(j, "raw", c->raw_reduced ? "reduced" : "full");
    mm_json_kv_string(j, "out", c->out);
    mm_json_kv_bool(j, "force", c->force);
    mm_json_key(j, "virtual");
    mm_json_begin_object(j);
    mm_json_kv_string(j, "base", c->virtual_base);
    mm_json_kv_double(j, "offset_s", c->virtual_offset_s);
    mm_json_kv_double(j, "skew_ppm", c->virtual_skew_ppm);
    mm_json_end_object(j);
    /* 0 in the config means "the algorithm's default": show the value the sync resolved
     * (null when the sync is not open yet) */
    const mm_clocksync_params *given = &c->cs_params;
    mm_clocksync_params none = {0, 0, 0, 0, 0.0};
    const mm_clocksync_params *used = cs ? &cs->params : &none;
    mm_json_key(j, "clocksync_params");
    mm_json_begin_object(j);
    mm__kv_positive(j, "nfit", given->nfit > 0 ? given->nfit : used->nfit);
    mm__kv_positive(j, "pingpong_cap",
                    given->pingpong_cap > 0 ? given->pingpong_cap : used->pingpong_cap);
    mm__kv_positive(j, "n_nonimproving",
                    given->n_nonimproving > 0 ? given->n_nonimproving : used->n_nonimproving);
    mm__kv_positive(j, "min_rounds", given->min_rounds > 0 ? given->min_rounds : used->min_rounds);
    mm__kv_positive(j, "fit_span_s", given->fit_span_s > 0 ? given->fit_span_s : used->fit_span_s);
    mm_json_end_object(j);
    mm_json_key(j, "procsync_params");
    mm_json_begin_object(j);
    mm_json_kv_double(j, "roundtime_budget_s", c->roundtime_budget_s);
    mm_json_kv_double(j, "bcast_factor", c->bcast_factor);
    mm_json_end_object(j);
    /* resolved: the algorithm's default when --resync was not given; <= 0 means never */
    const char *kind = cs && cs->vt ? cs->vt->model_kind : "identity";
    mm__kv_positive(j, "resync_s", mm_config_effective_resync_s(c, kind));
    mm_json_end_object(j);
}

static void mm__render_mpi_build_system(mm_json *j, const mm_provenance *p) {
    mm_json_key(j, "mpi");
    if (p) {
        mm_json_begin_object(j);
        mm__kv_text(j, "library", p->mpi_library);
        mm__kv_text(j, "version", p->mpi_version);
        const char *full = p->library_version_full;
        mm_json_key(j, "library_version");
        if (full && *full) {
            mm_buf first = {0};
            mm_buf_append(&first, full, strcspn(full, "\r\n"));
            mm_json_string(j, first.data);
            mm_buf_free(&first);
        } else {
            mm_json_null(j);
        }
        mm__kv_text(j, "library_version_full", full);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
    /* the build is compiled into this binary: known even without provenance */
    mm_json_key(j, "build");
    mm_json_begin_object(j);
    mm_json_kv_string(j, "compiler", MM_COMPILER);
    mm_json_kv_string(j, "flags", MM_COMPILE_FLAGS);
    mm_json_kv_string(j, "mpicc", MM_MPICC);
    mm_json_end_object(j);
    mm_json_key(j, "system");
    if (p) {
        mm_json_begin_object(j);
        mm__kv_text(j, "kernel", p->kernel);
        mm__kv_text(j, "cpu_model", p->cpu_model);
        mm_json_key(j, "tsc_flags");
        mm__word_array(j, p->tsc_flags);
        mm__kv_text(j, "governor", p->governor);
        mm_json_key(j, "ncpus");
        if (p->ncpus > 0)
            mm_json_int(j, p->ncpus);
        else
            mm_json_null(j);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
}

static void mm__render_ranks_env_load(mm_json *j, const mm_provenance *p, int nprocs) {
    mm_json_key(j, "ranks");
    if (p && p->ranks) {
        mm_json_begin_array(j);
        for (int r = 0; r < nprocs; r++) {
            mm_json_begin_object(j);
            mm_json_kv_int(j, "rank", r);
            mm__kv_text(j, "host", p->ranks[r].host);
            mm_json_key(j, "cpus");
            mm__cpu_list_array(j, p->ranks[r].cpus);
            mm_json_kv_int(j, "pid", p->ranks[r].pid);
            mm_json_end_object(j);
        }
        mm_json_end_array(j);
    } else {
        mm_json_null(j);
    }
    mm_json_key(j, "environment");
    if (p && p->environment_json.data && p->environment_json.len)
        mm_json_raw(j, p->environment_json.data);
    else
        mm_json_null(j);
    mm_json_key(j, "load");
    if (p) {
        int finished = p->wall_end[0] != '\0';
        mm_json_begin_object(j);
        mm_json_key(j, "loadavg_start");
        mm__double_array(j, p->loadavg_start, 3);
        mm_json_key(j, "loadavg_end");
        if (finished)
            mm__double_array(j, p->loadavg_end, 3);
        else
            mm_json_null(j);
        mm__kv_double_if(j, "other_cpu_s", finished, p->other_cpu_s);
        mm__kv_double_if(j, "own_cpu_s", finished, p->own_cpu_s);
        mm__kv_double_if(j, "wall_s", finished, p->wall_s);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
}

static void mm__render_timer(mm_json *j, const mm_launch *l) {
    mm_json_key(j, "timer");
    const mm_timer *t = l->timer;
    if (!t || !t->vt) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_object(j);
    mm_json_kv_string(j, "name", t->vt->name);
    mm_json_kv_double(j, "resolution_ns", t->resolution_ns);
    mm_json_kv_double(j, "overhead_ns", t->overhead_ns);
    mm__kv_positive(j, "tsc_hz", t->tsc_hz);
    mm_json_key(j, "virtual");
    if (l->virtual_offsets_ns && l->virtual_skews_ppm) {
        mm_json_begin_object(j);
        mm_json_key(j, "offsets_ns");
        mm__i64_array(j, l->virtual_offsets_ns, l->nprocs);
        mm_json_key(j, "skews_ppm");
        mm__double_array(j, l->virtual_skews_ppm, l->nprocs);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
    mm_json_end_object(j);
}

static void mm__render_residual(mm_json *j, const char *key, int n, const int *ranks,
                                const int64_t *res) {
    mm_json_key(j, key);
    if (n < 0 || (n > 0 && (!ranks || !res))) {
        mm_json_null(j);
        return;
    }
    uint64_t max_abs = 0; /* unsigned: |INT64_MIN| fits */
    for (int i = 0; i < n; i++) {
        uint64_t a = res[i] < 0 ? (uint64_t)0 - (uint64_t)res[i] : (uint64_t)res[i];
        if (a > max_abs) max_abs = a;
    }
    if (max_abs > (uint64_t)INT64_MAX) max_abs = (uint64_t)INT64_MAX;
    mm_json_begin_object(j);
    mm_json_key(j, "ranks");
    mm__int_array(j, ranks, n);
    mm_json_key(j, "residual_ns");
    mm__i64_array(j, res, n);
    mm_json_kv_int(j, "max_abs_ns", (int64_t)max_abs);
    mm_json_end_object(j);
}

static void mm__render_clock_sync(mm_json *j, const mm_launch *l) {
    mm_json_key(j, "clock_sync");
    const mm_clocksync *cs = l->cs;
    if (!cs || !cs->vt) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_object(j);
    mm_json_kv_string(j, "method", cs->vt->name);
    mm_json_kv_string(j, "model", cs->vt->model_kind);
    mm_json_kv_double(j, "duration_s", cs->duration_s);
    mm_json_kv_double(j, "total_duration_s", cs->total_duration_s);
    mm_json_key(j, "params");
    mm_json_begin_object(j);
    mm_json_kv_int(j, "nfit", cs->params.nfit);
    mm_json_kv_int(j, "pingpong_cap", cs->params.pingpong_cap);
    mm_json_kv_int(j, "n_nonimproving", cs->params.n_nonimproving);
    mm_json_kv_int(j, "min_rounds", cs->params.min_rounds);
    mm_json_kv_double(j, "fit_span_s", cs->params.fit_span_s);
    mm_json_end_object(j);
    mm_json_key(j, "parents");
    if (l->parents)
        mm__int_array(j, l->parents, l->nprocs);
    else
        mm_json_null(j);
    mm_json_key(j, "models");
    if (l->models) {
        mm_json_begin_array(j);
        for (int r = 0; r < l->nprocs; r++) {
            mm_json_begin_object(j);
            mm_json_kv_int(j, "rank", r);
            mm_json_kv_int(j, "anchor_ns", l->models[r].anchor_ns);
            mm_json_kv_double(j, "slope", l->models[r].slope);
            mm_json_kv_double(j, "intercept_ns", l->models[r].intercept_ns);
            mm_json_end_object(j);
        }
        mm_json_end_array(j);
    } else {
        mm_json_null(j);
    }
    mm_json_kv_int(j, "resyncs", cs->nsyncs > 1 ? cs->nsyncs - 1 : 0);
    mm__render_residual(j, "residual_start", l->nresidual_start, l->residual_ranks_start,
                        l->residual_start_ns);
    mm__render_residual(j, "residual_end", l->nresidual_end, l->residual_ranks_end,
                        l->residual_end_ns);
    mm__kv_text(j, "warning", l->sync_warning);
    mm_json_end_object(j);
}

static void mm__render_proc_sync(mm_json *j, const mm_launch *l) {
    mm_json_key(j, "proc_sync");
    const mm_procsync *ps = l->ps;
    if (!ps || !ps->vt) {
        mm_json_null(j);
        return;
    }
    long invalid = 0, late = 0, overrun = 0, round_late = 0, redone = 0;
    long redone_late = 0, redone_overrun = 0, redone_round_late = 0;
    mm_json_begin_object(j);
    mm_json_kv_string(j, "method", ps->vt->name);
    mm__kv_text(j, "scheme", ps->vt->scheme);
    mm_json_key(j, "window_ns_by_test");
    mm_json_begin_object(j);
    for (int i = 0; l->tests && i < l->ntests; i++) {
        const mm_test *t = &l->tests[i];
        invalid += t->invalid;
        late += t->invalid_late_start;
        overrun += t->invalid_overrun;
        round_late += t->invalid_round_late;
        redone += t->redone;
        redone_late += t->redone_late_start;
        redone_overrun += t->redone_overrun;
        redone_round_late += t->redone_round_late;
        if (t->window_ns > 0) {
            char key[16];
            snprintf(key, sizeof key, "%d", t->index);
            mm_json_kv_int(j, key, t->window_ns);
        }
    }
    mm_json_end_object(j);
    mm_json_key(j, "invalid");
    mm_json_begin_object(j);
    mm_json_kv_int(j, "total", invalid);
    mm_json_kv_int(j, "late_start", late);
    mm_json_kv_int(j, "overrun", overrun);
    mm_json_kv_int(j, "round_late", round_late);
    mm_json_end_object(j);
    mm_json_key(j, "redone");
    mm_json_begin_object(j);
    mm_json_kv_int(j, "total", redone);
    mm_json_key(j, "reasons");
    mm_json_begin_object(j);
    mm_json_kv_int(j, "late_start", redone_late);
    mm_json_kv_int(j, "overrun", redone_overrun);
    mm_json_kv_int(j, "round_late", redone_round_late);
    mm_json_end_object(j);
    mm_json_end_object(j);
    mm_json_end_object(j);
}

static void mm__render_tests(mm_json *j, const mm_launch *l) {
    mm_json_key(j, "tests");
    mm_json_begin_array(j);
    for (int i = 0; l->tests && i < l->ntests; i++) {
        const mm_test *t = &l->tests[i];
        mm_json_begin_object(j);
        mm_json_kv_int(j, "test", t->index);
        mm_json_kv_string(j, "op", t->op ? t->op->name : NULL);
        mm_json_kv_int(j, "size", t->size);
        mm_json_kv_string(j, "status", mm__test_status_word(t->status));
        mm_json_kv_int(j, "nrep", t->nrep);
        mm_json_kv_int(j, "nrep_asked", t->nrep_asked);
        /* why the test ended: every asked repetition, or the roundtime/harmonize time budget */
        mm__kv_text(j, "ended_by", t->status != MM_TEST_COMPLETE ? NULL
                                   : t->ended_by_budget       ? "budget"
                                                              : "nrep");
        mm_json_kv_int(j, "invalid", t->invalid);
        mm_json_kv_int(j, "invalid_late_start", t->invalid_late_start);
        mm_json_kv_int(j, "invalid_overrun", t->invalid_overrun);
        mm_json_kv_int(j, "invalid_round_late", t->invalid_round_late);
        mm_json_kv_int(j, "redone", t->redone);
        mm_json_kv_int(j, "resyncs", t->resyncs);
        mm__kv_positive(j, "window_ns", (double)t->window_ns);
        mm__kv_double_if(j, "started_s", t->status != MM_TEST_PENDING, t->started_s);
        mm__kv_double_if(j, "duration_s", t->status == MM_TEST_COMPLETE, t->duration_s);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

void mm_meta_render(const mm_launch *l, mm_buf *out) {
    out->len = 0;
    if (out->data) out->data[0] = '\0';
    mm_json j;
    mm_json_init(&j, out, 1);
    const mm_provenance *p = l->prov;
    mm_json_begin_object(&j);
    mm_json_kv_int(&j, "schema_version", MM_SCHEMA_VERSION);
    mm_json_key(&j, "tool");
    mm_json_begin_object(&j);
    mm_json_kv_string(&j, "name", "mpimeter-bench");
    mm_json_kv_string(&j, "version", MM_TOOL_VERSION);
    mm_json_kv_string(&j, "git_revision", MM_GIT_REVISION);
    mm_json_end_object(&j);
    mm__kv_text(&j, "status", l->status);
    mm_json_key(&j, "pid");
    if (p)
        mm_json_int(&j, p->pid);
    else
        mm_json_null(&j);
    mm__kv_text(&j, "host_of_rank0", p && p->ranks ? p->ranks[0].host : NULL);
    mm_json_key(&j, "argv");
    mm_json_raw(&j, l->cfg ? l->cfg->argv_joined : NULL); /* already a JSON array */
    mm_json_key(&j, "config");
    if (l->cfg)
        mm__render_config(&j, l->cfg, l->cs);
    else
        mm_json_null(&j);
    mm_json_kv_int(&j, "nprocs", l->nprocs);
    mm__render_mpi_build_system(&j, p);
    mm__render_ranks_env_load(&j, p, l->nprocs);
    mm__render_timer(&j, l);
    mm__render_clock_sync(&j, l);
    mm__render_proc_sync(&j, l);
    mm_json_kv_int(&j, "launch_epoch_local_ns_rank0", l->epoch_local_ns_rank0);
    mm__kv_text(&j, "wall_start", p ? p->wall_start : NULL);
    mm__kv_text(&j, "wall_end", p ? p->wall_end : NULL);
    mm__render_tests(&j, l);
    mm_json_key(&j, "warnings");
    mm_json_begin_array(&j);
    for (int i = 0; l->warnings && i < l->nwarnings; i++) mm_json_string(&j, l->warnings[i]);
    mm_json_end_array(&j);
    mm_json_end_object(&j);
    mm_buf_append(out, "\n", 1);
}
