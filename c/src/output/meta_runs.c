/* SPDX-License-Identifier: BSD-3-Clause */
/* meta_runs.c — the parts of meta.json (docs/FORMAT.md) that a launch rewrites as it runs: the
 * clock sync (models, residuals, re-syncs), the process sync's counts by reason, every test's
 * status, counts and error, and the conditions the launch noticed. Facts only: the analysis
 * judges them. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "meta_internal.h"

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

void mm__render_clock_sync(mm_json *j, const mm_launch *l) {
    mm_json_key(j, "clock_sync");
    const mm_sync_facts *cs = l->sync;
    if (!cs || !cs->method) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_object(j);
    mm_json_kv_string(j, "method", cs->method);
    /* --clocksync auto runs none where every rank reads one kernel clock (bench/same_kernel.c) */
    if (cs->chosen) mm_json_kv_string(j, "chosen", cs->chosen);
    mm_json_kv_string(j, "model", cs->model_kind);
    mm_json_kv_double(j, "duration_s", cs->duration_s);
    mm_json_kv_double(j, "total_duration_s", cs->total_duration_s);
    mm_json_key(j, "params");
    mm_json_begin_object(j);
    mm_json_kv_int(j, "nfit", cs->used.nfit);
    mm_json_kv_int(j, "pingpong_cap", cs->used.pingpong_cap);
    mm_json_kv_int(j, "n_nonimproving", cs->used.n_nonimproving);
    mm_json_kv_int(j, "min_rounds", cs->used.min_rounds);
    mm_json_kv_double(j, "fit_span_s", cs->used.fit_span_s);
    /* the fit's early stop (docs/ALGORITHMS.md, "Defaults"): null when off (every fit takes
     * nfit points) */
    mm_json_key(j, "fit_target_ns");
    if (cs->used.fit_target_ns > 0)
        mm_json_int(j, cs->used.fit_target_ns);
    else
        mm_json_null(j);
    mm_json_key(j, "fit_horizon_s");
    if (cs->used.fit_target_ns > 0)
        mm_json_double(j, cs->used.fit_horizon_s);
    else
        mm_json_null(j);
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
    /* the self-check after the first sync of a drift-aware model (clocksync/self_check.c) */
    mm_json_key(j, "self_check");
    if (cs->self_checked) {
        mm_json_begin_object(j);
        mm_json_kv_int(j, "drift_aware_residual_ns", cs->self_check_linear_ns);
        mm_json_kv_int(j, "offset_only_residual_ns", cs->self_check_offset_ns);
        mm_json_kv_int(j, "margin_ns", MM_SELF_CHECK_MARGIN_NS);
        mm_json_kv_string(j, "used", cs->offset_only ? "offset-only" : "drift-aware");
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
    mm_json_kv_int(j, "resyncs", cs->nsyncs > 1 ? cs->nsyncs - 1 : 0);
    mm_json_kv_int(j, "failed_syncs", cs->nfailed);
    mm__render_residual(j, "residual_start", l->nresidual_start, l->residual_ranks_start,
                        l->residual_start_ns);
    mm__render_residual(j, "residual_end", l->nresidual_end, l->residual_ranks_end,
                        l->residual_end_ns);
    mm_json_end_object(j);
}

/* The per-reason counts, named as in docs/FORMAT.md (MM_INVALID_NREASONS order). */
static const char *const mm__reason_names[MM_INVALID_NREASONS] = {"late_start", "overrun",
                                                                 "round_late", "late_wakeup"};

static void mm__reason_object(mm_json *j, const long *counts) {
    mm_json_begin_object(j);
    for (int r = 0; r < MM_INVALID_NREASONS; r++) mm_json_kv_int(j, mm__reason_names[r], counts[r]);
    mm_json_end_object(j);
}

void mm__render_proc_sync(mm_json *j, const mm_launch *l) {
    mm_json_key(j, "proc_sync");
    if (!l->procsync_method) {
        mm_json_null(j);
        return;
    }
    long invalid = 0, redone = 0, late[MM_INVALID_NREASONS] = {0}, again[MM_INVALID_NREASONS] = {0};
    mm_json_begin_object(j);
    mm_json_kv_string(j, "method", l->procsync_method);
    mm__kv_text(j, "scheme", l->procsync_scheme);
    mm_json_key(j, "window_ns_by_test");
    mm_json_begin_object(j);
    for (int i = 0; l->tests && i < l->ntests; i++) {
        const mm_test *t = &l->tests[i];
        invalid += t->invalid;
        redone += t->redone;
        for (int r = 0; r < MM_INVALID_NREASONS; r++) {
            late[r] += t->invalid_by_reason[r];
            again[r] += t->redone_by_reason[r];
        }
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
    for (int r = 0; r < MM_INVALID_NREASONS; r++) mm_json_kv_int(j, mm__reason_names[r], late[r]);
    mm_json_end_object(j);
    mm_json_key(j, "redone");
    mm_json_begin_object(j);
    mm_json_kv_int(j, "total", redone);
    mm_json_key(j, "reasons");
    mm__reason_object(j, again);
    mm_json_end_object(j);
    mm_json_end_object(j);
}

/* tests[].adaptive: --nrep auto's verdict on a finished test (null otherwise). */
static void mm__render_adaptive(mm_json *j, const mm_test *t) {
    mm_json_key(j, "adaptive");
    if (t->nrep_rule == MM_NREP_FIXED ||
        (t->status != MM_TEST_COMPLETE && t->status != MM_TEST_INCOMPLETE)) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_object(j);
    mm_json_kv_string(j, "rule", mm_nrep_rule_name(t->nrep_rule));
    mm__kv_text(j, "stopped_by", mm_stop_reason_name(t->stopped_by));
    mm__kv_double_if(j, "precision", isfinite(t->precision_reached), t->precision_reached);
    mm_json_kv_int(j, "valid", t->valid_used);
    mm_json_kv_int(j, "decisions", t->decisions);
    mm_json_end_object(j);
}

/* tests[].error: the failed call's code and message; null unless the test failed */
static void mm__render_error(mm_json *j, const mm_test *t) {
    mm_json_key(j, "error");
    if (t->status == MM_TEST_FAILED) {
        mm_json_begin_object(j);
        mm_json_kv_string(j, "code", t->error_code);
        mm_json_kv_string(j, "message", t->error_message);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
}

/* tests[].procsync_switches: the window's policy (bench/switch.c), each switch of start method
 * within the test */
static void mm__render_switches(mm_json *j, const mm_test *t) {
    mm_json_key(j, "procsync_switches");
    mm_json_begin_array(j);
    for (int k = 0; k < t->nswitches && k < MM_MAX_SWITCHES; k++) {
        const mm_switch_record *w = &t->switches[k];
        mm_json_begin_object(j);
        mm_json_kv_string(j, "from", w->from);
        mm_json_kv_string(j, "to", w->to);
        mm_json_kv_string(j, "why", w->why);
        mm_json_kv_int(j, "from_rep", w->from_rep);
        mm_json_kv_int(j, "at_seq", w->at_seq);
        mm_json_kv_double(j, "late_fraction", w->late_fraction);
        mm__kv_positive(j, "window_ns", (double)w->window_ns);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

/* tests[].nbc: a nonblocking collective's computation, once it ran (rows: it recorded some) */
static void mm__render_nbc(mm_json *j, const mm_test *t, int rows) {
    mm_json_key(j, "nbc");
    if (t->op && t->nbc && rows) {
        mm_json_begin_object(j);
        mm_json_kv_int(j, "compute_ns", t->nbc_compute_ns);
        mm_json_kv_int(j, "tests", t->nbc_ntests);
        mm_json_kv_int(j, "work_units", t->nbc_work_units);
        mm__kv_positive(j, "calibrated_ns", (double)t->nbc_calibrated_ns);
        mm_json_kv_int(j, "blocking_nrep", t->nbc_blocking_nrep);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
}

/* tests[].other_cpu: other processes' CPU share per block of repetitions (bench/other_cpu.c);
 * null when not measured. Shares to 4 decimals, seconds to the microsecond. */
static void mm__render_other_cpu(mm_json *j, const mm_test *t, int rows) {
    mm_json_key(j, "other_cpu");
    if (!rows || !t->load_blocks || t->nload_blocks < 1) {
        mm_json_null(j);
        return;
    }
    long hz = sysconf(_SC_CLK_TCK);
    mm_json_begin_object(j);
    mm_json_kv_int(j, "block_reps", t->load_block_reps);
    mm__kv_double_if(j, "tick_s", hz > 0, 1.0 / (double)hz);
    static const char *const keys[] = {"first_rep", "nrep", "wall_s", "other_cpu_s", "share"};
    for (int f = 0; f < 5; f++) {
        mm_json_key(j, keys[f]);
        mm_json_begin_array(j);
        for (long k = 0; k < t->nload_blocks; k++) {
            const mm_load_block *b = &t->load_blocks[k];
            if (f == 0) mm_json_int(j, b->first_rep);
            if (f == 1) mm_json_int(j, b->nrep);
            if (f == 2) mm_json_double(j, round(b->wall_s * 1e6) / 1e6);
            if (f == 3) mm_json_double(j, round(b->other_s * 1e6) / 1e6);
            if (f == 4) mm_json_double(j, round(b->share * 1e4) / 1e4);
        }
        mm_json_end_array(j);
    }
    mm_json_end_object(j);
}

void mm__render_tests(mm_json *j, const mm_launch *l) {
    mm_json_key(j, "tests");
    mm_json_begin_array(j);
    for (int i = 0; l->tests && i < l->ntests; i++) {
        const mm_test *t = &l->tests[i];
        /* finished with rows: complete, or incomplete (a budget ended it before --nrep) */
        int rows = t->status == MM_TEST_COMPLETE || t->status == MM_TEST_INCOMPLETE;
        int done = rows || t->status == MM_TEST_FAILED;
        mm_json_begin_object(j);
        mm_json_kv_int(j, "test", t->index);
        mm_json_kv_string(j, "op", t->op ? t->op->name : NULL);
        mm_json_kv_int(j, "size", t->size);
        mm_json_kv_int(j, "nprocs", t->nprocs);
        if (t->root >= 0) mm_json_kv_int(j, "root", t->root); /* rooted operations only */
        if (t->workpieces > 0) mm_json_kv_int(j, "workpieces", t->workpieces); /* mw-workpieces only */
        mm_json_kv_string(j, "status", mm__test_status_word(t->status));
        mm__render_error(j, t);
        mm_json_kv_int(j, "nrep", rows ? t->nrep : 0);
        mm_json_kv_int(j, "nrep_asked", t->nrep_asked);
        /* why the test ended: every asked repetition, the roundtime/harmonize time budget, or
         * the stopping rule of --nrep auto (adaptive.stopped_by says which of its reasons) */
        mm__kv_text(j, "ended_by", !rows                              ? NULL
                                   : t->ended_by_budget              ? "budget"
                                   : t->nrep_rule != MM_NREP_FIXED ? "rule"
                                                                     : "nrep");
        mm_json_kv_int(j, "invalid", t->invalid);
        for (int r = 0; r < MM_INVALID_NREASONS; r++) {
            char key[40];
            snprintf(key, sizeof key, "invalid_%s", mm__reason_names[r]);
            mm_json_kv_int(j, key, t->invalid_by_reason[r]);
        }
        mm_json_kv_int(j, "redone", t->redone);
        mm_json_kv_int(j, "resyncs", t->resyncs);
        mm__kv_positive(j, "window_ns", (double)t->window_ns);
        mm__kv_positive(j, "window_pilot_ns", (double)t->pilot_window_ns);
        mm__kv_positive(j, "start_tolerance_ns", (double)t->start_tolerance_ns);
        mm__kv_positive(j, "budget_s", t->status != MM_TEST_PENDING ? t->budget_s : 0.0);
        /* the bound's data term on this test's communicator (--nprocs: not the launch's) */
        mm__kv_double_if(j, "bound_bytes_per_size", t->bound_bytes_per_size >= 0, t->bound_bytes_per_size);
        /* --subtract-overhead: the empty region measured before the test on its ranks */
        mm__kv_double_if(j, "overhead_ns", t->overhead_ns >= 0, t->overhead_ns);
        if (rows && t->back_to_back_calls > 0) { /* --back-to-back: absent when none ran */
            mm_json_key(j, "back_to_back");
            mm_json_begin_object(j);
            mm_json_kv_int(j, "calls", t->back_to_back_calls);
            mm_json_kv_double(j, "mean_ns", t->back_to_back_mean_ns);
            mm_json_end_object(j);
        }
        mm__render_other_cpu(j, t, rows);
        mm__render_switches(j, t);
        mm__kv_double_if(j, "started_s", t->status != MM_TEST_PENDING, t->started_s);
        mm__kv_double_if(j, "duration_s", done, t->duration_s);
        mm__render_nbc(j, t, rows);
        mm__render_adaptive(j, t);
        mm_json_kv_bool(j, "size_added", t->size_added);
        mm_json_key(j, "refine_round"); /* --sizes auto: 0 for the grid; null without it */
        if (l->refine)
            mm_json_int(j, t->refine_round);
        else
            mm_json_null(j);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

void mm__render_size_refinement(mm_json *j, const mm_launch *l) {
    mm_json_key(j, "size_refinement");
    if (!l->refine) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_array(j);
    for (int r = 0; r < l->nrefine; r++) {
        const mm_refine_op *ref = &l->refine[r];
        mm_json_begin_object(j);
        mm_json_kv_string(j, "op", ref->op->name);
        mm_json_key(j, "added"); /* in the order they were added */
        mm_json_begin_array(j);
        for (int round = 1; round <= ref->rounds; round++)
            for (int i = 0; i < l->ntests; i++)
                if (l->tests[i].op == ref->op && l->tests[i].size_added && l->tests[i].refine_round == round)
                    mm_json_int(j, l->tests[i].size);
        mm_json_end_array(j);
        mm_json_kv_int(j, "rounds", ref->rounds);
        mm__kv_double_if(j, "max_error", isfinite(ref->max_error), ref->max_error);
        mm__kv_text(j, "stopped_by", mm_stop_reason_name(ref->stopped_by));
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

void mm__render_conditions(mm_json *j, const mm_conditions *c) {
    mm_json_key(j, "conditions");
    mm_json_begin_array(j);
    for (int i = 0; c && i < c->n; i++) {
        mm_json_begin_object(j);
        mm_json_kv_string(j, "code", c->item[i].code);
        mm_json_kv_string(j, "message", c->item[i].message);
        mm_json_kv_string(j, "hint", c->item[i].hint);
        mm__kv_text(j, "where", c->item[i].where);
        mm_json_end_object(j);
    }
    if (c && c->dropped > 0) {
        char msg[160];
        snprintf(msg, sizeof msg, "%d more condition(s) did not fit in meta.json", c->dropped);
        mm_json_begin_object(j);
        mm_json_kv_string(j, "code", "conditions-dropped");
        mm_json_kv_string(j, "message", msg);
        mm_json_kv_string(j, "hint", "see the launch's stderr");
        mm_json_key(j, "where");
        mm_json_null(j);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}
