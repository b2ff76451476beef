/* SPDX-License-Identifier: BSD-3-Clause */
/* parse.c — parsing and validating mpimeter-bench's options, once, on rank 0.
 *
 * In app/ because a configuration is valid only against every registry (operations, clock and
 * process syncs, timers, datatypes, counters, the output folder): the one place above them all.
 * Every option is a row of the table in options.c (name, type, bounds, default, help); numbers are
 * parsed generically from it, the rest here; the checks that need the registries are in
 * parse_validate.c, with mm_config_check_nprocs for what needs the communicator size. Every
 * refusal is one line naming the option, what was given and what is allowed (exit 2). */
#include "mm_config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mm_adaptive.h"
#include "parse_internal.h"
#include "mm_bench.h"
#include "mm_prng.h"
#include "mm_clocksync.h"
#include "mm_counters.h"
#include "mm_json.h"
#include "mm_ops.h"
#include "mm_output.h"
#include "mm_procsync.h"
#include "mm_timer.h"

static int mm__apply(mm_config *cfg, const mm_option_spec *o, const char *value,
                     int *seen_clocksync, char *err, size_t len);

/* The options whose default (the option table's default_text, options.c: written there and
 * nowhere else) is the configuration's starting value. The others start at 0, which means
 * "auto", "none" or "the algorithm's default" (resolved by the module that owns it: the clock
 * syncs' --nfit, --min-rounds ..., --window-us, --resync-s). */
static const char *const mm__defaulted_options[] = {
    "nrep", "nrep-min", "nrep-max", "precision", "nrep-confidence", "nrep-every", "nrep-budget-s",
    "sizes-precision", "sizes-budget", "warmup", "timer", "procsync", "copy-probe-bytes",
    "datatype", "reduce-op", "virtual-base", "roundtime-budget-s", "bcast-factor", "check-at",
    "window-growth-max", "switch-late-fraction", "launch-budget-s",
    "rma-window", "rma-burst", "root", "batch", "workpieces",
};

void mm_config_defaults(mm_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->mode = MM_MODE_BENCH;
    cfg->adaptive.nrep_rule = MM_NREP_FIXED;
    for (size_t i = 0; i < sizeof mm__defaulted_options / sizeof mm__defaulted_options[0]; i++) {
        const char *name = mm__defaulted_options[i];
        const mm_option_spec *o = mm_option_find(name, strlen(name));
        char err[256];
        int seen_clocksync = 0;
        /* the table's own default always parses (test_config.c checks the values) */
        if (o && o->default_text) mm__apply(cfg, o, o->default_text, &seen_clocksync, err, sizeof err);
    }
    cfg->adaptive.sizes_factor = 2; /* --sizes auto:MIN:MAX without :xF (its syntax, not an option) */
}

/* ---- lists ---- */

/* Splits text at commas into at most max names; empty items refused. */
static int mm__split_names(const char *opt, const char *text, char (*names)[MM_NAME_LEN], int max,
                           int *n, char *err, size_t len) {
    *n = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t item = comma ? (size_t)(comma - p) : strlen(p);
        if (item == 0) return mm_fail(err, len, "--%s: empty item in '%s'", opt, text);
        if (item >= MM_NAME_LEN) return mm_fail(err, len, "--%s: name too long in '%s'", opt, text);
        if (*n >= max) return mm_fail(err, len, "--%s: more than %d items", opt, max);
        memcpy(names[*n], p, item);
        names[*n][item] = '\0';
        (*n)++;
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

int mm_parse_sizes(const char *text, int64_t *sizes, int max, int *n, char *err, size_t len) {
    static const char *allowed =
        "allowed: whole numbers of bytes, comma-separated (8,1024), and/or geometric ranges "
        "FROM:TO:xFACTOR (8:1048576:x2)";
    *n = 0;
    if (*text == '\0') return mm_fail(err, len, "--sizes: empty; %s", allowed);
    char buf[4096];
    if (strlen(text) >= sizeof buf) return mm_fail(err, len, "--sizes: too long");
    snprintf(buf, sizeof buf, "%s", text);
    /* split by hand: strtok would skip the empty item of "8,,16" without a word */
    for (char *item = buf, *next; item; item = next) {
        char *comma = strchr(item, ',');
        next = comma ? comma + 1 : NULL;
        if (comma) *comma = '\0';
        if (*item == '\0') return mm_fail(err, len, "--sizes: empty item in '%s'; %s", text, allowed);
        char *c1 = strchr(item, ':');
        if (!c1) {
            char *end;
            errno = 0;
            long long v = strtoll(item, &end, 10);
            if (errno || end == item || *end || v < 0)
                return mm_fail(err, len, "--sizes: '%s' is not a size; %s", item, allowed);
            if (*n >= max) return mm_fail(err, len, "--sizes: more than %d sizes", max);
            sizes[(*n)++] = v;
            continue;
        }
        char *c2 = strchr(c1 + 1, ':');
        char *from_end, *to_end, *factor_end;
        errno = 0;
        long long from = strtoll(item, &from_end, 10);
        long long to = c2 ? strtoll(c1 + 1, &to_end, 10) : -1;
        long long factor = (c2 && c2[1] == 'x') ? strtoll(c2 + 2, &factor_end, 10) : -1;
        if (errno || !c2 || from_end != c1 || to_end != c2 || c2[1] != 'x' || *factor_end ||
            factor_end == c2 + 2)
            return mm_fail(err, len, "--sizes: '%s' is not a range; %s", item, allowed);
        if (from < 1 || to < from || factor < 2)
            return mm_fail(err, len,
                            "--sizes: range '%s' needs 1 <= FROM <= TO and FACTOR >= 2", item);
        for (long long v = from; v <= to; v *= factor) {
            if (*n >= max) return mm_fail(err, len, "--sizes: more than %d sizes", max);
            sizes[(*n)++] = v;
            if (v > LLONG_MAX / factor) break;
        }
    }
    return 0;
}

static int mm__parse_check_at(const mm_option_spec *o, const char *text, mm_config *cfg,
                              char *err, size_t len) {
    char names[MM_MAX_CHECKS][MM_NAME_LEN];
    int n;
    int rc = mm__split_names(o->name, text, names, MM_MAX_CHECKS, &n, err, len);
    if (rc) return rc;
    for (int i = 0; i < n; i++) {
        char allowed[256];
        mm_option_allowed_text(o, allowed, sizeof allowed);
        char *end;
        errno = 0;
        double v = strtod(names[i], &end);
        if (errno || end == names[i] || *end || !isfinite(v))
            return mm_config_message(err, len, MM_MSG_NOT_NUMBER, o->name, names[i], allowed, NULL);
        if (mm_option_out_of_range(o, v))
            return mm_config_message(err, len, MM_MSG_OUT_OF_RANGE, o->name, names[i], allowed, NULL);
        if (i > 0 && v < cfg->check.check_at_s[i - 1])
            return mm_fail(err, len, "--check-at: times must not decrease ('%s')", text);
        cfg->check.check_at_s[i] = v;
    }
    cfg->check.ncheck = n;
    return 0;
}

/* --pair A,B: two distinct whole numbers >= 0 (or auto); whether they are ranks of the launch
 * is checked with the number of ranks (mm_config_check_nprocs). */
static int mm__parse_pair(const mm_option_spec *o, const char *text, mm_config *cfg, char *err,
                          size_t len) {
    char allowed[256];
    mm_option_allowed_text(o, allowed, sizeof allowed);
    if (strcmp(text, "auto") == 0) {
        cfg->plan.pair_given = 0;
        return 0;
    }
    long long v[2];
    const char *p = text;
    for (int i = 0; i < 2; i++) {
        char *end;
        errno = 0;
        if (!isdigit((unsigned char)*p))
            return mm_fail(err, len, "--pair: '%s' is not two ranks A,B; allowed: %s", text, allowed);
        v[i] = strtoll(p, &end, 10);
        if (errno || v[i] > o->max)
            return mm_fail(err, len, "--pair: '%s' is out of range; allowed: %s", text, allowed);
        if ((i == 0 && *end != ',') || (i == 1 && *end != '\0'))
            return mm_fail(err, len, "--pair: '%s' is not two ranks A,B; allowed: %s", text, allowed);
        p = end + 1;
    }
    if (v[0] == v[1])
        return mm_fail(err, len, "--pair: '%s' names rank %lld twice; allowed: %s", text, v[0],
                        allowed);
    cfg->plan.pair[0] = (int)v[0];
    cfg->plan.pair[1] = (int)v[1];
    cfg->plan.pair_given = 1;
    return 0;
}

/* argv as a JSON array, for meta.json. */
static void mm__argv_json(mm_config *cfg, int argc, char **argv) {
    mm_buf b = {0};
    mm_buf_append(&b, "[", 1);
    for (int i = 0; i < argc; i++) {
        if (i) mm_buf_append(&b, ", ", 2);
        mm_json_escape(&b, argv[i]);
    }
    mm_buf_append(&b, "]", 1);
    if (b.len < sizeof cfg->output.argv_joined) {
        memcpy(cfg->output.argv_joined, b.data, b.len);
        cfg->output.argv_joined[b.len] = '\0';
    } else {
        snprintf(cfg->output.argv_joined, sizeof cfg->output.argv_joined, "[\"(argv too long to record)\"]");
    }
    mm_buf_free(&b);
}

/* Where a NAME option's value goes. */
static char *mm__name_slot(mm_config *cfg, const char *name) {
    if (strcmp(name, "timer") == 0) return cfg->timing.timer;
    if (strcmp(name, "procsync") == 0) return cfg->procsync;
    if (strcmp(name, "datatype") == 0) return cfg->measure.datatype;
    if (strcmp(name, "reduce-op") == 0) return cfg->measure.reduce_op;
    if (strcmp(name, "virtual-base") == 0) return cfg->timing.virtual_base;
    if (strcmp(name, "inject-error") == 0) return cfg->inject.error_op;
    return NULL;
}

/* Applies one option. Returns 0 or 2. */
static int mm__apply(mm_config *cfg, const mm_option_spec *o, const char *value,
                     int *seen_clocksync, char *err, size_t len) {
    const char *name = o->name;
    switch (o->type) {
    case MM_OPT_INT:
    case MM_OPT_I64:
    case MM_OPT_FLOAT:
    case MM_OPT_NPROCS: {
        if (strcmp(name, "nrep") == 0) return mm__config_parse_nrep(o, value, cfg, err, len);
        int rc = mm_option_parse_number(o, value, cfg, err, len);
        if (rc == 0 && strcmp(name, "window-us") == 0) cfg->ps.window_given = 1;
        if (rc == 0 && strcmp(name, "resync-s") == 0) cfg->cs.resync_given = 1;
        return rc;
    }
    case MM_OPT_SEED: {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(value, &end, 10);
        char allowed[256];
        mm_option_allowed_text(o, allowed, sizeof allowed);
        if (end == value || *end || value[0] == '-' || (errno && errno != ERANGE))
            return mm_config_message(err, len, MM_MSG_NOT_WHOLE, name, value, allowed, NULL);
        if (errno == ERANGE)
            return mm_config_message(err, len, MM_MSG_OUT_OF_RANGE, name, value, allowed, NULL);
        cfg->plan.seed = s;
        cfg->plan.seed_given = 1;
        return 0;
    }
    case MM_OPT_NAME: {
        char *dst = mm__name_slot(cfg, name);
        if (!dst) return mm_fail(err, len, "internal: option --%s has no place", name);
        if (strlen(value) >= MM_NAME_LEN || !*value)
            return mm_config_message(err, len, MM_MSG_UNKNOWN_NAME, name, value,
                                     mm_registry_names(o->choices), mm_registry_what(o->choices));
        snprintf(dst, MM_NAME_LEN, "%s", value);
        return 0;
    }
    case MM_OPT_NAMES:
        if (strcmp(name, "ops") == 0) {
            cfg->ops_given = 1;
            return mm__split_names(name, value, cfg->ops, MM_MAX_OPS, &cfg->nops, err, len);
        }
        *seen_clocksync = 1;
        return mm__split_names(name, value, cfg->clocksync, MM_MAX_ALGS, &cfg->nclocksync, err, len);
    case MM_OPT_SIZES:
        if (strncmp(value, "auto", 4) == 0) return mm__config_parse_sizes_auto(value, cfg, err, len);
        return mm_parse_sizes(value, cfg->sizes, MM_MAX_SIZES, &cfg->nsizes, err, len);
    case MM_OPT_FLOATS:
        return mm__parse_check_at(o, value, cfg, err, len);
    case MM_OPT_CHOICE: {
        /* the value's position among the row's choices is what the option stores */
        int *slot = strcmp(name, "raw") == 0          ? &cfg->output.raw_reduced
                    : strcmp(name, "nbc-scheme") == 0 ? &cfg->nbc.work_scheme
                    : strcmp(name, "rma-sync") == 0   ? &cfg->rma.sync
                    : strcmp(name, "rma-window") == 0 ? &cfg->rma.window
                    : strcmp(name, "order") == 0      ? &cfg->plan.order_ascending
                                                      : NULL;
        if (!slot) return mm_fail(err, len, "internal: option --%s has no place", name);
        int index = mm_option_choice_index(o, value);
        if (index < 0) {
            char allowed[128];
            mm_option_allowed_text(o, allowed, sizeof allowed);
            return mm_config_message(err, len, MM_MSG_UNKNOWN_NAME, name, value, allowed,
                                     mm_registry_what(NULL));
        }
        *slot = index;
        return 0;
    }
    case MM_OPT_PAIR:
        return mm__parse_pair(o, value, cfg, err, len);
    case MM_OPT_INTS: {
        mm_int_list *slot = strcmp(name, "root") == 0     ? &cfg->plan.roots
                            : strcmp(name, "nprocs") == 0 ? &cfg->plan.comm_sizes
                            : strcmp(name, "workpieces") == 0 ? &cfg->plan.workpieces
                                                          : NULL;
        if (!slot) return mm_fail(err, len, "internal: option --%s has no place", name);
        return mm_option_parse_ints(o, value, slot, err, len);
    }
    case MM_OPT_LIST: {
        if (strcmp(name, "cart-dims") == 0) return mm__parse_cart_dims(o, value, cfg, err, len);
        /* counters: the syntax here; the names against the library and the machine at launch
         * (mm_counters_resolve) and, for --papi, in mm__validate */
        int pvars = strcmp(name, "mpit-pvars") == 0;
        char *slot = pvars ? cfg->counters.mpit_pvars : cfg->counters.papi_events;
        int rc = mm_counters_check_names(name, value, pvars, err, len);
        if (rc == 0) snprintf(slot, MM_COUNTERS_TEXT, "%s", value);
        return rc;
    }
    case MM_OPT_PATH: {
        char *slot = strcmp(name, "out") == 0               ? cfg->out
                     : strcmp(name, "copy-probe-from") == 0 ? cfg->probe.copy_probe_from
                     : strcmp(name, "mpit-from") == 0       ? cfg->probe.mpit_from
                     : strcmp(name, "graph-file") == 0      ? cfg->topo.graph_file
                                                            : NULL;
        if (!slot) return mm_fail(err, len, "internal: option --%s has no place", name);
        if (!*value) return mm_fail(err, len, "--%s: empty path", name);
        if (strlen(value) >= MM_PATH_LEN)
            return mm_fail(err, len, "--%s: path too long (at most %d characters)", name, MM_PATH_LEN - 1);
        snprintf(slot, MM_PATH_LEN, "%s", value);
        return 0;
    }
    case MM_OPT_FLAG:
        if (strcmp(name, "force") == 0) cfg->output.force = 1;
        else if (strcmp(name, "json") == 0) cfg->check.json = 1;
        else if (strcmp(name, "subtract-overhead") == 0) cfg->measure.subtract_overhead = 1;
        else if (strcmp(name, "progress") == 0 || strcmp(name, "quiet") == 0) {
            int want = name[0] == 'p' ? MM_PROGRESS_ON : MM_PROGRESS_OFF;
            if (cfg->output.progress != MM_PROGRESS_AUTO && cfg->output.progress != want)
                return mm_fail(err, len, "--progress and --quiet: give one of them (or neither: "
                               "a line per test when stderr is a terminal)");
            cfg->output.progress = want;
        }
        else if (strcmp(name, "sync-check") == 0) cfg->mode = MM_MODE_SYNC_CHECK;
        else if (strcmp(name, "list-ops") == 0) cfg->mode = MM_MODE_LIST_OPS;
        else if (strcmp(name, "describe") == 0) cfg->mode = MM_MODE_DESCRIBE;
        else if (strcmp(name, "list-pvars") == 0) cfg->mode = MM_MODE_LIST_PVARS;
        else if (strcmp(name, "list-algorithms") == 0) cfg->mode = MM_MODE_LIST_ALGORITHMS;
        else if (strcmp(name, "help") == 0) cfg->mode = MM_MODE_HELP;
        else if (strcmp(name, "version") == 0) cfg->mode = MM_MODE_VERSION;
        else return mm_fail(err, len, "internal: option --%s has no handler", name);
        return 0;
    }
    return mm_fail(err, len, "internal: option --%s has no handler", name);
}

int mm_config_parse(mm_config *cfg, int argc, char **argv, char *err, size_t len) {
    mm_config_defaults(cfg);
    int rc = mm_parse_sizes("8:65536:x8,65536", cfg->sizes, MM_MAX_SIZES, &cfg->nsizes, err, len);
    if (rc) return rc;
    rc = mm__split_names("ops", "allreduce,bcast,alltoall,barrier", cfg->ops, MM_MAX_OPS, &cfg->nops, err, len);
    if (rc) return rc;
    mm__argv_json(cfg, argc, argv);
    int seen_clocksync = 0;
    size_t nopts;
    const mm_option_spec *table = mm_options(&nopts);
    char seen[128] = {0}; /* room for the option table's rows; the check below keeps it so */
    const char *given[128] = {0}; /* each option's value as given, for messages */
    if (nopts > sizeof seen) return mm_fail(err, len, "internal: too many options");
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
            return mm_fail(err, len, "unexpected argument '%s'; options start with -- (see --help)", a);
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
        const mm_option_spec *o = mm_option_find(name, name_len);
        if (!o) return mm_fail(err, len, "unknown option '%.*s'; see mpimeter-bench --help", (int)(name_len + 2), a);
        const char *value = NULL;
        if (o->type != MM_OPT_FLAG) {
            if (eq) value = eq + 1;
            else if (i + 1 < argc) value = argv[++i];
            else if (!seen[o - table]) return mm_fail(err, len, "--%s: missing value (%s)", o->name, o->metavar);
        } else if (eq) {
            return mm_fail(err, len, "--%s takes no value", o->name);
        }
        if (seen[o - table]++) {
            /* both values named: "--nrep auto" and "--nrep 300" cannot both hold */
            if (o->type != MM_OPT_FLAG && value && given[o - table])
                return mm_fail(err, len, "--%s: given more than once ('%s', then '%s'); give it once",
                                o->name, given[o - table], value);
            return mm_fail(err, len, "--%s: given more than once", o->name);
        }
        given[o - table] = value;
        rc = mm__apply(cfg, o, value, &seen_clocksync, err, len);
        if (rc) return rc;
    }
    if (cfg->mode == MM_MODE_HELP || cfg->mode == MM_MODE_LIST_OPS || cfg->mode == MM_MODE_VERSION ||
        cfg->mode == MM_MODE_DESCRIBE || cfg->mode == MM_MODE_LIST_PVARS || cfg->mode == MM_MODE_LIST_ALGORITHMS)
        return 0;
    rc = mm__config_check_modes(cfg, seen, err, len);
    if (rc) return rc;
    rc = mm__config_quick_defaults(cfg, seen, table, err, len);
    if (rc) return rc;
    rc = mm__config_check_scoped_options(cfg, seen, err, len);
    if (rc) return rc;
    {
        const mm_option_spec *o = mm_option_find("rma-sync", 8);
        cfg->rma.sync_given = o && seen[o - table];
    }
    rc = mm__config_check_adaptive(cfg, seen, given, err, len);
    if (rc) return rc;
    if (!cfg->plan.seed_given) {
        /* Drawn from the clock and pid; recorded in meta.json so the order can be replayed. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
        cfg->plan.seed = mm_rand_next(&s) % 1000000000000ULL;
    }
    return mm__config_validate(cfg, seen_clocksync, err, len);
}
