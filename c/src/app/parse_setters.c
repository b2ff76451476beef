/* SPDX-License-Identifier: BSD-3-Clause */
/* parse_setters.c — the setters of the option table's rows (options.c) that do more than store a
 * value where the row's offset says (the generic ones are in parse_options.c): the modes, the
 * lists of names, --seed, --sizes, the options whose being given is recorded, --progress and
 * --quiet, the counters. Each checks the syntax of its value; what needs the registries or the
 * other options is checked once all are read (parse_validate.c). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_config.h"
#include "mm_counters.h"
#include "mm_error.h"
#include "parse_internal.h"

/* ---- the modes: a flag that says what the binary does instead of a launch ---- */

static mm_status mm__set_mode(mm_config *cfg, mm_mode mode) {
    cfg->run.mode = mode;
    return 0;
}

#define MM__MODE_SETTER(fn, mode)                                                              \
    int fn(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len) { \
        (void)o, (void)value, (void)err, (void)len;                                            \
        return mm__set_mode(cfg, mode);                                                        \
    }
MM__MODE_SETTER(mm__set_mode_sync_check, MM_MODE_SYNC_CHECK)
MM__MODE_SETTER(mm__set_mode_list_ops, MM_MODE_LIST_OPS)
MM__MODE_SETTER(mm__set_mode_describe, MM_MODE_DESCRIBE)
MM__MODE_SETTER(mm__set_mode_list_pvars, MM_MODE_LIST_PVARS)
MM__MODE_SETTER(mm__set_mode_list_algorithms, MM_MODE_LIST_ALGORITHMS)
MM__MODE_SETTER(mm__set_mode_help, MM_MODE_HELP)
MM__MODE_SETTER(mm__set_mode_version, MM_MODE_VERSION)

/* ---- lists of names ---- */

mm_status mm__split_names(const char *opt, const char *text, char (*names)[MM_NAME_LEN], int max, int *n,
                          char *err, size_t len) {
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

mm_status mm__set_ops(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len) {
    cfg->ops_given = 1;
    return mm__split_names(o->name, value, cfg->ops, MM_MAX_OPS, &cfg->nops, err, len);
}

mm_status mm__set_clocksync(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                            size_t len) {
    return mm__split_names(o->name, value, cfg->clocksync, MM_MAX_ALGS, &cfg->nclocksync, err, len);
}

mm_status mm__set_sizes(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len) {
    (void)o;
    if (strncmp(value, "auto", 4) == 0) return mm__config_parse_sizes_auto(value, cfg, err, len);
    return mm_parse_sizes(value, cfg->sizes, MM_MAX_SIZES, &cfg->nsizes, err, len);
}

/* ---- --sizes, --check-at, --pair ---- */

mm_status mm_parse_sizes(const char *text, int64_t *sizes, int max, int *n, char *err, size_t len) {
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

mm_status mm__set_check_at(const mm_option_spec *o, const char *text, mm_config *cfg, char *err,
                           size_t len) {
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

/* --inject-fault KIND:OP:SIZE (test only): KIND crash or hang, OP an operation (checked with the
 * others, parse_validate.c), SIZE a whole number. */
mm_status mm__set_inject_fault(const mm_option_spec *o, const char *text, mm_config *cfg, char *err,
                               size_t len) {
    const char *op = strchr(text, ':');
    const char *size = op ? strchr(op + 1, ':') : NULL;
    char *end = NULL;
    errno = 0;
    long long bytes = size ? strtoll(size + 1, &end, 10) : -1;
    int kind = op && (size_t)(op - text) == 5 && strncmp(text, "crash", 5) == 0 ? MM_FAULT_CRASH
               : op && (size_t)(op - text) == 4 && strncmp(text, "hang", 4) == 0 ? MM_FAULT_HANG
                                                                                  : MM_FAULT_NONE;
    if (kind == MM_FAULT_NONE || !size || size - op - 1 <= 0 || size - op - 1 >= MM_NAME_LEN || errno ||
        end == size + 1 || *end || bytes < 0)
        return mm_fail(err, len, "--%s: '%s' is not KIND:OP:SIZE; allowed: crash or hang, an "
                       "operation, a whole number of at least 0", o->name, text);
    cfg->inject.fault = kind;
    snprintf(cfg->inject.fault_op, sizeof cfg->inject.fault_op, "%.*s", (int)(size - op - 1), op + 1);
    cfg->inject.fault_size = bytes;
    return 0;
}

/* --pair A,B: two distinct whole numbers >= 0 (or auto); whether they are ranks of the launch
 * is checked with the number of ranks (mm_config_check_nprocs). */
mm_status mm__set_pair(const mm_option_spec *o, const char *text, mm_config *cfg, char *err,
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

/* ---- values whose being given is recorded ---- */

mm_status mm__set_seed(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len) {
    char *end;
    errno = 0;
    unsigned long long s = strtoull(value, &end, 10);
    char allowed[256];
    mm_option_allowed_text(o, allowed, sizeof allowed);
    if (end == value || *end || value[0] == '-' || (errno && errno != ERANGE))
        return mm_config_message(err, len, MM_MSG_NOT_WHOLE, o->name, value, allowed, NULL);
    if (errno == ERANGE)
        return mm_config_message(err, len, MM_MSG_OUT_OF_RANGE, o->name, value, allowed, NULL);
    cfg->plan.seed = s;
    cfg->plan.seed_given = 1;
    return 0;
}

mm_status mm__set_window_us(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                            size_t len) {
    int rc = mm_option_parse_number(o, value, cfg, err, len);
    if (rc == 0) cfg->ps.window_given = 1;
    return rc;
}

mm_status mm__set_resync_s(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                           size_t len) {
    int rc = mm_option_parse_number(o, value, cfg, err, len);
    if (rc == 0) cfg->cs.resync_given = 1;
    return rc;
}

/* ---- --progress and --quiet: one or neither ---- */

static mm_status mm__set_progress_to(mm_config *cfg, int want, char *err, size_t len) {
    if (cfg->output.progress != MM_PROGRESS_AUTO && cfg->output.progress != want)
        return mm_fail(err, len, "--progress and --quiet: give one of them (or neither: "
                       "a line per test when stderr is a terminal)");
    cfg->output.progress = want;
    return 0;
}

mm_status mm__set_progress(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                           size_t len) {
    (void)o, (void)value;
    return mm__set_progress_to(cfg, MM_PROGRESS_ON, err, len);
}

mm_status mm__set_quiet(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len) {
    (void)o, (void)value;
    return mm__set_progress_to(cfg, MM_PROGRESS_OFF, err, len);
}

/* ---- counters: the syntax here; the names against the library and the machine at launch
 * (mm_counters_resolve) and, for --papi and --likwid, in parse_validate.c ---- */

mm_status mm__set_mpit_pvars(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                             size_t len) {
    int rc = mm_counters_check_names(o->name, value, 1, err, len);
    if (rc == 0) snprintf(cfg->counters.mpit_pvars, MM_COUNTERS_TEXT, "%s", value);
    return rc;
}

mm_status mm__set_papi(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len) {
    int rc = mm_counters_check_names(o->name, value, 0, err, len);
    if (rc == 0) snprintf(cfg->counters.papi_events, MM_COUNTERS_TEXT, "%s", value);
    return rc;
}

/* a group name, or a custom event set EVENT:COUNTER,...: the syntax of --papi's names */
mm_status mm__set_likwid(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len) {
    int rc = mm_counters_check_names(o->name, value, 0, err, len);
    if (rc == 0) snprintf(cfg->counters.likwid_group, MM_COUNTERS_TEXT, "%s", value);
    return rc;
}
