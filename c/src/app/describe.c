/* SPDX-License-Identifier: BSD-3-Clause */
/* describe.c — the binary's self-description (`mpimeter-bench --describe`, docs/FORMAT.md) and
 * the resolved configuration of `--validate NP`.
 *
 * What: one versioned JSON document with every option (type, bounds, default, unit, help, the
 *   values it may take, which mode it applies to), the words of bad-input messages, and every
 *   registry with its properties: timers, clock syncs, process syncs, operations, datatypes,
 *   reduce ops with the datatypes they allow, the sources of counters, the environment rule,
 *   the binary's limits.
 * Why: one source of truth. The Python half builds `mpimeter run`'s and `mpimeter sync-check`'s
 *   pass-through options, their validation and their help from this document and keeps no copy
 *   of its own (docs/ARCHITECTURE.md, "The binary describes itself").
 * Cost: a walk over the tables; no MPI (it runs as a plain process, before MPI_Init). */
#include <stdio.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_counters.h"
#include "mm_json.h"
#include "mm_mockups.h"
#include "mm_ops.h"
#include "mm_output.h"
#include "mm_procsync.h"
#include "mm_timer.h"

#include "../output/build_info.h"
#include "parse_internal.h"

static const char *mm__type_word(mm_opt_type t) {
    switch (t) {
    case MM_OPT_FLAG: return "flag";
    case MM_OPT_INT: return "int";
    case MM_OPT_I64: return "int";
    case MM_OPT_FLOAT: return "float";
    case MM_OPT_SEED: return "uint64";
    case MM_OPT_NAME: return "name";
    case MM_OPT_NAMES: return "names";
    case MM_OPT_CHOICE: return "choice";
    case MM_OPT_SIZES: return "sizes";
    case MM_OPT_FLOATS: return "floats";
    case MM_OPT_PATH: return "path";
    case MM_OPT_NPROCS: return "int";
    case MM_OPT_PAIR: return "pair";
    case MM_OPT_LIST: return "list";
    case MM_OPT_INTS: return "ints";
    }
    return "?";
}

static int mm__is_number(mm_opt_type t) {
    return t == MM_OPT_INT || t == MM_OPT_I64 || t == MM_OPT_FLOAT || t == MM_OPT_SEED ||
           t == MM_OPT_FLOATS || t == MM_OPT_NPROCS || t == MM_OPT_INTS;
}

/* A bound as a JSON number: integral values as integers (exact up to 2^64 for the seed). */
static void mm__bound(mm_json *j, const char *key, double v) {
    mm_json_key(j, key);
    if (v == (double)(int64_t)v && v > -9.2e18 && v < 9.2e18)
        mm_json_int(j, (int64_t)v);
    else if (v >= 1.8e19 && v < 1.9e19)
        mm_json_raw(j, "18446744073709551615");
    else
        mm_json_double(j, v);
}

/* The registry's names as a JSON array, from the comma-separated list. */
/* "ops": the operations an op-scoped option shapes (null: every test), so that a launch that runs
 * none of them can leave it out (the binary refuses it there). */
static void mm__option_ops(mm_json *j, const char *option) {
    mm_json_key(j, "ops");
    if (!mm_option_op_scoped(option)) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_array(j);
    for (size_t i = 0; i < mm_ops_count; i++)
        if (mm_option_applies_to_op(option, &mm_ops_table[i]) == 1) mm_json_string(j, mm_ops_table[i].name);
    mm_json_end_array(j);
}

static void mm__names_array(mm_json *j, const char *list) {
    mm_json_begin_array(j);
    for (const char *p = list; *p;) {
        p += strspn(p, ", ");
        size_t n = strcspn(p, ",");
        if (n == 0) break;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        mm_json_string(j, name);
        p += n;
    }
    mm_json_end_array(j);
}

static void mm__options(mm_json *j) {
    size_t n;
    const mm_option_spec *t = mm_options(&n);
    mm_json_key(j, "options");
    mm_json_begin_array(j);
    for (size_t i = 0; i < n; i++) {
        const mm_option_spec *o = &t[i];
        mm_json_begin_object(j);
        mm_json_kv_string(j, "name", o->name);
        mm_json_kv_string(j, "type", mm__type_word(o->type));
        mm_json_key(j, "metavar");
        mm_json_string(j, o->metavar);
        mm_json_kv_string(j, "default", o->default_text);
        mm_json_key(j, "unit");
        mm_json_string(j, o->unit);
        mm_json_kv_string(j, "help", o->help);
        if (mm__is_number(o->type)) {
            mm__bound(j, "min", o->min);
            mm_json_kv_bool(j, "min_exclusive", (o->flags & MM_OPT_F_ABOVE) != 0);
            mm__bound(j, "max", o->max);
            mm_json_kv_bool(j, "max_exclusive", (o->flags & MM_OPT_F_BELOW) != 0);
            mm_json_kv_bool(j, "zero_allowed", (o->flags & MM_OPT_F_OR_ZERO) != 0);
        }
        mm_json_kv_bool(j, "auto", (o->flags & MM_OPT_F_AUTO) != 0);
        mm_json_key(j, "auto_values"); /* the words accepted besides numbers: auto, auto:ci, ... */
        if (o->flags & MM_OPT_F_AUTO)
            mm__names_array(j, mm_option_auto_words(o));
        else
            mm_json_null(j);
        char allowed[8192]; /* every operation's name: ~1.9 KB today */
        mm_option_allowed_text(o, allowed, sizeof allowed);
        mm_json_kv_string(j, "allowed", allowed);
        mm_json_key(j, "choices");
        if (o->type == MM_OPT_NAME || o->type == MM_OPT_NAMES) {
            mm__names_array(j, mm_registry_names(o->choices));
        } else if (o->type == MM_OPT_CHOICE) {
            mm__names_array(j, o->choices);
        } else {
            mm_json_null(j);
        }
        mm_json_key(j, "registry");
        mm_json_string(j, o->type == MM_OPT_NAME || o->type == MM_OPT_NAMES ? o->choices : NULL);
        mm_json_key(j, "what");
        mm_json_string(j, o->type == MM_OPT_NAME || o->type == MM_OPT_NAMES || o->type == MM_OPT_CHOICE
                              ? mm_registry_what(o->type == MM_OPT_CHOICE ? NULL : o->choices)
                              : NULL);
        mm_json_key(j, "modes");
        mm_json_begin_array(j);
        if (o->flags & MM_OPT_F_BENCH) mm_json_string(j, "bench");
        if (o->flags & MM_OPT_F_SYNC_CHECK) mm_json_string(j, "sync-check");
        if (o->flags & MM_OPT_F_INFO) mm_json_string(j, "info");
        mm_json_end_array(j);
        mm_json_kv_bool(j, "per_launch", (o->flags & MM_OPT_F_PER_LAUNCH) != 0);
        mm_json_kv_bool(j, "selects_mode", (o->flags & MM_OPT_F_MODE) != 0);
        mm_json_kv_bool(j, "hidden", (o->flags & MM_OPT_F_HIDDEN) != 0);
        mm__option_ops(j, o->name);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

static void mm__messages(mm_json *j) {
    mm_json_key(j, "messages");
    mm_json_begin_object(j);
    mm_json_kv_string(j, "not_whole_number", MM_MSG_NOT_WHOLE);
    mm_json_kv_string(j, "not_a_number", MM_MSG_NOT_NUMBER);
    mm_json_kv_string(j, "out_of_range", MM_MSG_OUT_OF_RANGE);
    mm_json_kv_string(j, "unknown_name", MM_MSG_UNKNOWN_NAME);
    mm_json_end_object(j);
}

static void mm__timers(mm_json *j) {
    mm_json_key(j, "timers");
    mm_json_begin_array(j);
    for (int i = 0; mm_timer_registry[i]; i++) {
        const mm_timer_vtable *v = mm_timer_registry[i];
        char why[256] = "";
        int available = !v->available || v->available(why, sizeof why) == 0;
        mm_json_begin_object(j);
        mm_json_kv_string(j, "name", v->name);
        mm_json_kv_string(j, "description", v->description);
        mm_json_kv_bool(j, "available", available);
        mm_json_key(j, "unavailable_because");
        mm_json_string(j, available ? NULL : why);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

static void mm__clock_syncs(mm_json *j) {
    mm_json_key(j, "clock_syncs");
    mm_json_begin_array(j);
    for (int i = 0; mm_clocksync_registry[i]; i++) {
        const mm_clocksync_vtable *v = mm_clocksync_registry[i];
        mm_clocksync_params p;
        mm_clocksync_params_resolve(v->name, NULL, &p);
        mm_json_begin_object(j);
        mm_json_kv_string(j, "name", v->name);
        mm_json_kv_string(j, "model", v->model_kind);
        mm_json_kv_bool(j, "drift_aware", strcmp(v->model_kind, "linear") == 0);
        mm_json_kv_string(j, "tree", v->tree);
        mm_json_kv_string(j, "cost", v->cost);
        mm_json_kv_string(j, "description", v->description);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

static void mm__process_syncs(mm_json *j) {
    mm_json_key(j, "process_syncs");
    mm_json_begin_array(j);
    for (int i = 0; mm_procsync_registry[i]; i++) {
        const mm_procsync_vtable *v = mm_procsync_registry[i];
        mm_json_begin_object(j);
        mm_json_kv_string(j, "name", v->name);
        mm_json_kv_string(j, "scheme", v->scheme);
        mm_json_kv_bool(j, "uses_global_clock", v->needs_global_clock);
        mm_json_kv_bool(j, "redoes_late_rounds", v->redoes_invalid);
        mm_json_kv_bool(j, "barrier_in_timed_region", v->barrier_in_timed_region);
        mm_json_kv_bool(j, "has_planned_start", v->has_planned_start);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

static void mm__operations(mm_json *j) {
    mm_json_key(j, "operations");
    mm_json_begin_array(j);
    for (size_t i = 0; i < mm_ops_count; i++) {
        const mm_op *op = &mm_ops_table[i];
        mm_op_args probe;
        memset(&probe, 0, sizeof probe);
        mm_json_begin_object(j);
        mm_json_kv_string(j, "name", op->name);
        mm_json_kv_string(j, "kind", op->kind);
        mm_json_kv_bool(j, "ranks_finish_apart", (op->flags & MM_OP_FINISH_APART) != 0);
        mm_json_kv_string(j, "size_unit", mm_op_size_unit(op));
        mm_json_kv_bool(j, "round_trip", (op->flags & MM_OP_ROUND_TRIP) != 0);
        mm_json_kv_bool(j, "uses_pair", (op->flags & MM_OP_PAIR) != 0);
        mm_json_kv_bool(j, "size_unused", (op->flags & MM_OP_SIZE_UNUSED) != 0);
        mm_json_kv_bool(j, "uses_root", (op->flags & MM_OP_ROOTED) != 0);
        mm_json_kv_bool(j, "uses_reduce_op", (op->flags & MM_OP_REDUCES) != 0);
        mm_json_kv_bool(j, "uses_workpieces", mm_op_uses_workpieces(op)); /* one test per --workpieces value */
        mm_json_kv_bool(j, "error_injectable", mm_op_inject_error(op, &probe) == 0);
        char why[256];
        int available = mm_op_available(op, why, sizeof why);
        mm_json_kv_bool(j, "available", available); /* in this build's MPI library */
        mm_json_key(j, "unavailable_reason");
        if (available)
            mm_json_null(j);
        else
            mm_json_string(j, why);
        mm_json_kv_string(j, "pattern", op->pattern);
        mm_json_kv_string(j, "constraints", op->constraints);
        mm_json_key(j, "bound_volume"); /* the data term of its bound; null: none stated */
        if (mm_op_volume_formula(op))
            mm_json_string(j, mm_op_volume_formula(op));
        else
            mm_json_null(j);
        const mm_mockup *mockup = mm_mockup_of(op);
        if (mockup) { /* a guideline's right-hand side: the op whose result it gives, and how */
            mm_json_key(j, "mockup");
            mm_json_begin_object(j);
            mm_json_kv_string(j, "of", mockup->of);
            mm_json_key(j, "calls");
            mm_json_begin_array(j);
            for (size_t c = 0; c < sizeof mockup->calls / sizeof mockup->calls[0] && mockup->calls[c]; c++)
                mm_json_string(j, mockup->calls[c]);
            mm_json_end_array(j);
            mm_json_end_object(j);
        }
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

static void mm__types(mm_json *j) {
    mm_json_key(j, "datatypes");
    mm_json_begin_array(j);
    int size;
    const char *kind;
    for (size_t i = 0; mm_datatype_at(i, &size, &kind); i++) {
        mm_json_begin_object(j);
        mm_json_kv_string(j, "name", mm_datatype_at(i, NULL, NULL));
        mm_json_kv_int(j, "bytes", size);
        mm_json_kv_string(j, "kind", kind);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
    mm_json_key(j, "reduce_ops");
    mm_json_begin_array(j);
    for (size_t i = 0; mm_reduce_op_at(i); i++) {
        const char *op = mm_reduce_op_at(i);
        mm_json_begin_object(j);
        mm_json_kv_string(j, "name", op);
        mm_json_key(j, "datatypes");
        mm_json_begin_array(j);
        char why[256];
        for (size_t d = 0; mm_datatype_at(d, NULL, NULL); d++)
            if (mm_reduce_op_check(op, mm_datatype_at(d, NULL, NULL), why, sizeof why) == 0)
                mm_json_string(j, mm_datatype_at(d, NULL, NULL));
        mm_json_end_array(j);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

/* The sources of counters (meta.json's counters.metrics[].source), in the order a launch reads
 * them; whether this build can count with PAPI or LIKWID is tool.papi and tool.likwid. */
static void mm__counter_sources(mm_json *j) {
    mm_json_key(j, "counter_sources");
    mm_json_begin_array(j);
    for (size_t i = 0; mm_counter_source_name(i); i++) {
        mm_json_begin_object(j);
        mm_json_kv_string(j, "name", mm_counter_source_name(i));
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
}

static void mm__words(mm_json *j, const char *key, const char *const *words) {
    mm_json_key(j, key);
    mm_json_begin_array(j);
    for (size_t i = 0; words[i]; i++) mm_json_string(j, words[i]);
    mm_json_end_array(j);
}

void mm_config_print_describe(FILE *f) {
    mm_buf buf = {0};
    mm_json j;
    mm_json_init(&j, &buf, 1);
    mm_json_begin_object(&j);
    mm_json_kv_int(&j, "describe_version", MM_DESCRIBE_VERSION);
    mm_json_key(&j, "tool");
    mm_json_begin_object(&j);
    mm_json_kv_string(&j, "name", "mpimeter-bench");
    mm_json_kv_string(&j, "version", MM_TOOL_VERSION);
    mm_json_kv_string(&j, "git_revision", MM_GIT_REVISION);
    mm_json_kv_int(&j, "meta_schema_version", MM_SCHEMA_VERSION);
    mm_json_kv_string(&j, "mpicc", MM_MPICC);
    mm_json_kv_bool(&j, "papi", mm_papi_built()); /* --papi can count anything at all */
    mm_json_kv_bool(&j, "likwid", mm_likwid_built()); /* --likwid can */
    mm_json_end_object(&j);
    mm__options(&j);
    mm__messages(&j);
    mm__timers(&j);
    mm__clock_syncs(&j);
    mm__process_syncs(&j);
    mm__operations(&j);
    mm__types(&j);
    mm__counter_sources(&j);
    mm_json_key(&j, "environment");
    mm_json_begin_object(&j);
    mm__words(&j, "record_prefixes", mm_env_record_prefixes);
    mm__words(&j, "secret_words", mm_env_secret_words);
    mm_json_end_object(&j);
    mm_json_key(&j, "limits");
    mm_json_begin_object(&j);
    mm_json_kv_int(&j, "ops", MM_MAX_OPS);
    mm_json_kv_int(&j, "sizes", MM_MAX_SIZES);
    mm_json_kv_int(&j, "clock_syncs", MM_MAX_ALGS);
    mm_json_kv_int(&j, "check_at", MM_MAX_CHECKS);
    mm_json_kv_int(&j, "name_length", MM_NAME_LEN - 1);
    mm_json_kv_int(&j, "path_length", MM_PATH_LEN - 32);
    mm_json_kv_int(&j, "quoted_value", MM_QUOTED_VALUE_MAX);
    mm_json_end_object(&j);
    mm_json_key(&j, "exit_codes");
    mm_json_begin_object(&j);
    mm_json_kv_string(&j, "0", "success");
    mm_json_kv_string(&j, "1", "failure while measuring (meta.json says why)");
    mm_json_kv_string(&j, "2", "bad input: one line on stderr, nothing written");
    mm_json_end_object(&j);
    mm_json_end_object(&j);
    fputs(buf.data ? buf.data : "{}", f);
    fputc('\n', f);
    mm_buf_free(&buf);
}

void mm_config_print_validated(FILE *f, const mm_config *cfg) {
    int ntests = mm_plan_size(cfg, cfg->run.validate_nprocs);
    mm_buf buf = {0};
    mm_json j;
    mm_json_init(&j, &buf, 0);
    mm_json_begin_object(&j);
    mm_json_kv_int(&j, "describe_version", MM_DESCRIBE_VERSION);
    mm_json_kv_string(&j, "mode", cfg->run.mode == MM_MODE_SYNC_CHECK ? "sync-check" : "bench");
    mm_json_kv_int(&j, "nprocs", cfg->run.validate_nprocs);
    mm_json_kv_int(&j, "tests", cfg->run.mode == MM_MODE_SYNC_CHECK ? 0 : ntests);
    mm_json_key(&j, "config");
    mm_sync_facts sync;
    mm_clocksync_facts_of(cfg, NULL, &sync);
    mm_meta_render_config(&j, cfg, &sync);
    mm_json_key(&j, "operations");
    mm_op_facts ops[MM_MAX_OPS];
    mm_meta_render_operations(&j, ops, mm_op_facts_of_config(cfg, cfg->run.validate_nprocs, ops, MM_MAX_OPS));
    if (cfg->run.mode == MM_MODE_BENCH) {
        /* what the launch will hold for its repetitions (mm_rep_arrays_bytes): rank 0 receives
         * the rows, the others hold their own (bench/simulate_memory.py reports these) */
        mm_json_key(&j, "rep_arrays_bytes");
        mm_json_begin_object(&j);
        mm_json_kv_int(&j, "rank0", mm_rep_arrays_bytes(cfg->nrep, 0, cfg->run.validate_nprocs, cfg->output.raw_reduced));
        mm_json_kv_int(&j, "other_rank", mm_rep_arrays_bytes(cfg->nrep, 1, cfg->run.validate_nprocs, cfg->output.raw_reduced));
        mm_json_end_object(&j);
    }
    mm_json_end_object(&j);
    fputs(buf.data ? buf.data : "{}", f);
    fputc('\n', f);
    mm_buf_free(&buf);
}
