/* SPDX-License-Identifier: BSD-3-Clause */
/* parse_options.c — the option table read as a parser reads it: what a value of an option may be
 * ("a whole number from 1 to 100", a registry's names), and the generic parsing of a number option.
 * Here, above every registry, because the allowed names of NAME options are the registries' own. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_error.h"
#include "mm_ops.h"
#include "mm_procsync.h"
#include "mm_timer.h"

/* 100000000 rather than 1e+08: bounds as a user would type them. */
static void mm__plain(double x, char *out, size_t len) {
    if (x == floor(x) && fabs(x) < 1e19)
        snprintf(out, len, "%.0f", x);
    else
        snprintf(out, len, "%g", x);
}

void mm_option_allowed_text(const mm_option_spec *o, char *out, size_t len) {
    char lo[32], hi[32];
    mm__plain(o->min, lo, sizeof lo);
    mm__plain(o->max, hi, sizeof hi);
    if (o->type == MM_OPT_SEED) snprintf(hi, sizeof hi, "18446744073709551615"); /* 2^64 - 1 */
    char words[96] = ""; /* ", or auto", ", or auto, auto:ci, auto:rse" */
    if (o->flags & MM_OPT_F_AUTO) {
        size_t used = (size_t)snprintf(words, sizeof words, ", or ");
        for (const char *p = mm_option_auto_words(o); *p && used + 3 < sizeof words; p++) {
            words[used++] = *p;
            if (*p == ',') words[used++] = ' ';
        }
        words[used] = '\0';
    }
    switch (o->type) {
    case MM_OPT_INT:
    case MM_OPT_I64:
    case MM_OPT_SEED:
    case MM_OPT_NPROCS:
        snprintf(out, len, "a whole number from %s to %s%s", lo, hi, words);
        return;
    case MM_OPT_FLOAT:
    case MM_OPT_FLOATS:
        if (o->flags & MM_OPT_F_OR_ZERO)
            snprintf(out, len, "0, or a number from %s to %s%s", lo, hi, words);
        else if (o->flags & (MM_OPT_F_ABOVE | MM_OPT_F_BELOW))
            snprintf(out, len, "a number %s %s, %s %s%s",
                     (o->flags & MM_OPT_F_ABOVE) ? "above" : "from", lo,
                     (o->flags & MM_OPT_F_BELOW) ? "below" : "at most", hi, words);
        else
            snprintf(out, len, "a number from %s to %s%s", lo, hi, words);
        return;
    case MM_OPT_INTS:
        snprintf(out, len, "distinct whole numbers from %s to %s, comma-separated%s", lo, hi, words);
        return;
    case MM_OPT_PAIR:
        snprintf(out, len, "two distinct ranks A,B (whole numbers from 0, below the number of "
                 "ranks), or auto");
        return;
    case MM_OPT_NAME:
    case MM_OPT_NAMES:
        snprintf(out, len, "%s%s", mm_registry_names(o->choices),
                 (o->flags & MM_OPT_F_AUTO) ? ", auto" : "");
        return;
    case MM_OPT_LIST:
        snprintf(out, len, "%s", o->choices ? o->choices : "names, comma-separated");
        return;
    case MM_OPT_CHOICE: {
        size_t used = 0;
        for (const char *p = o->choices; *p && used + 3 < len; p++) {
            out[used++] = *p;
            if (*p == ',') out[used++] = ' ';
        }
        out[used] = '\0';
        return;
    }
    default:
        snprintf(out, len, "%s", o->metavar ? o->metavar : "");
    }
}

const char *mm_registry_names(const char *registry) {
    if (!registry) return "";
    if (strcmp(registry, "timers") == 0) return mm_timer_names();
    if (strcmp(registry, "clock_syncs") == 0) return mm_clocksync_names();
    if (strcmp(registry, "process_syncs") == 0) return mm_procsync_names();
    if (strcmp(registry, "datatypes") == 0) return mm_datatype_names();
    if (strcmp(registry, "reduce_ops") == 0) return mm_reduce_op_names();
    if (strcmp(registry, "operations") == 0) return mm_op_names();
    return "";
}

int mm_option_out_of_range(const mm_option_spec *o, double v) {
    if ((o->flags & MM_OPT_F_OR_ZERO) && v == 0) return 0;
    int low = (o->flags & MM_OPT_F_ABOVE) ? !(v > o->min) : v < o->min;
    int high = (o->flags & MM_OPT_F_BELOW) ? !(v < o->max) : v > o->max;
    return low || high;
}

mm_status mm_option_parse_number(const mm_option_spec *o, const char *text, mm_config *cfg, char *err,
                                 size_t len) {
    char allowed[256];
    mm_option_allowed_text(o, allowed, sizeof allowed);
    char *base = (char *)cfg + o->offset;
    if ((o->flags & MM_OPT_F_AUTO) && strcmp(text, "auto") == 0) {
        /* 0 stands for "auto": outside every auto option's range, so never a user's value */
        if (o->type == MM_OPT_FLOAT) *(double *)(void *)base = 0.0;
        else if (o->type == MM_OPT_I64) *(int64_t *)(void *)base = 0;
        else *(int *)(void *)base = 0;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    if (o->type == MM_OPT_FLOAT) {
        double v = strtod(text, &end);
        if (errno || end == text || *end != '\0' || !isfinite(v))
            return mm_config_message(err, len, MM_MSG_NOT_NUMBER, o->name, text, allowed, NULL);
        if (mm_option_out_of_range(o, v))
            return mm_config_message(err, len, MM_MSG_OUT_OF_RANGE, o->name, text, allowed, NULL);
        *(double *)(void *)base = v;
        return 0;
    }
    long long v = strtoll(text, &end, 10);
    if (end == text || *end != '\0' || (errno && errno != ERANGE))
        return mm_config_message(err, len, MM_MSG_NOT_WHOLE, o->name, text, allowed, NULL);
    if (errno == ERANGE || mm_option_out_of_range(o, (double)v))
        return mm_config_message(err, len, MM_MSG_OUT_OF_RANGE, o->name, text, allowed, NULL);
    if (o->type == MM_OPT_I64)
        *(int64_t *)(void *)base = (int64_t)v;
    else
        *(int *)(void *)base = (int)v;
    return 0;
}

mm_status mm_option_parse_ints(const mm_option_spec *o, const char *text, mm_int_list *out, char *err,
                               size_t len) {
    char allowed[256];
    mm_option_allowed_text(o, allowed, sizeof allowed);
    memset(out, 0, sizeof *out);
    if ((o->flags & MM_OPT_F_AUTO) && strcmp(text, mm_option_auto_words(o)) == 0) {
        out->all = 1;
        return 0;
    }
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t item_len = comma ? (size_t)(comma - p) : strlen(p);
        char item[32];
        if (item_len == 0 || item_len >= sizeof item)
            return mm_config_message(err, len, MM_MSG_NOT_WHOLE, o->name,
                                     item_len ? text : "", allowed, NULL);
        memcpy(item, p, item_len);
        item[item_len] = '\0';
        char *end = NULL;
        errno = 0;
        long long v = strtoll(item, &end, 10);
        if (!isdigit((unsigned char)item[0]) || *end || errno == EINVAL)
            return mm_config_message(err, len, MM_MSG_NOT_WHOLE, o->name, item, allowed, NULL);
        if (errno == ERANGE || (double)v < o->min || (double)v > o->max)
            return mm_config_message(err, len, MM_MSG_OUT_OF_RANGE, o->name, item, allowed, NULL);
        for (int i = 0; i < out->n; i++)
            if (out->v[i] == (int)v)
                return mm_fail(err, len, "--%s: %lld is given twice in '%s'; allowed: %s", o->name,
                               v, text, allowed);
        if (out->n >= MM_MAX_LIST)
            return mm_fail(err, len, "--%s: more than %d numbers in '%s'", o->name, MM_MAX_LIST, text);
        out->v[out->n++] = (int)v;
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

/* ---- messages ---- */

const char *const MM_MSG_NOT_WHOLE = "--{option}: '{value}' is not a whole number; allowed: {allowed}";
const char *const MM_MSG_NOT_NUMBER = "--{option}: '{value}' is not a number; allowed: {allowed}";
const char *const MM_MSG_OUT_OF_RANGE = "--{option}: {value} is out of range; allowed: {allowed}";
const char *const MM_MSG_UNKNOWN_NAME = "--{option}: unknown {what} '{value}'; allowed: {allowed}";

mm_status mm_config_message(char *err, size_t len, const char *tmpl, const char *option,
                            const char *value, const char *allowed, const char *what) {
    static const char *const keys[] = {"{option}", "{value}", "{allowed}", "{what}"};
    const char *vals[] = {option, value, allowed, what};
    size_t used = 0;
    if (len == 0) return MM_E_INPUT;
    for (const char *p = tmpl; *p && used + 1 < len;) {
        int hit = -1;
        for (int k = 0; k < 4; k++)
            if (strncmp(p, keys[k], strlen(keys[k])) == 0) hit = k;
        if (hit < 0) {
            err[used++] = *p++;
            continue;
        }
        const char *v = vals[hit] ? vals[hit] : "";
        if (hit == 1) { /* the value: a bounded excerpt (MM_QUOTED_VALUE_MAX) */
            size_t n = strlen(v), keep = n;
            if (n > MM_QUOTED_VALUE_MAX) {
                keep = MM_QUOTED_VALUE_MAX;
                while (keep > 0 && ((unsigned char)v[keep] & 0xC0) == 0x80) keep--;
            }
            for (size_t i = 0; i < keep && used + 1 < len; i++)
                err[used++] = ((unsigned char)v[i] < 0x20 || v[i] == 0x7f) ? '?' : v[i];
            for (const char *dots = keep < n ? "..." : ""; *dots && used + 1 < len;) err[used++] = *dots++;
            p += strlen(keys[hit]);
            continue;
        }
        while (*v && used + 1 < len) err[used++] = *v++;
        p += strlen(keys[hit]);
    }
    err[used] = '\0';
    return MM_E_INPUT;
}

const char *mm_option_auto_words(const mm_option_spec *o) {
    /* --nrep auto[:RULE] (bench/adaptive.c): one word per stopping rule */
    if (strcmp(o->name, "root") == 0) return "all"; /* --root all: every rank */
    return strcmp(o->name, "nrep") == 0 ? "auto,auto:ci,auto:rse" : "auto";
}

int mm_option_choice_index(const mm_option_spec *o, const char *value) {
    size_t n = strlen(value);
    int index = 0;
    for (const char *p = o->choices; p && *p; index++) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (n > 0 && len == n && strncmp(p, value, n) == 0) return index;
        if (!comma) break;
        p = comma + 1;
    }
    return -1;
}

const char *mm_registry_what(const char *registry) {
    static const char *const pairs[][2] = {
        {"timers", "timer"},         {"clock_syncs", "clock sync"},
        {"process_syncs", "process sync"}, {"datatypes", "datatype"},
        {"reduce_ops", "reduction"}, {"operations", "operation"},
    };
    for (size_t i = 0; registry && i < sizeof pairs / sizeof pairs[0]; i++)
        if (strcmp(pairs[i][0], registry) == 0) return pairs[i][1];
    return "mode";
}

/* ---- numbers: the whole text must be a number in range ---- */

/* ---- the generic setters: the value goes where the row's offset says ---- */

mm_status mm_option_set_name(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                             size_t len) {
    /* the registry's names are checked once every option is read (parse_validate.c) */
    if (strlen(value) >= MM_NAME_LEN || !*value)
        return mm_config_message(err, len, MM_MSG_UNKNOWN_NAME, o->name, value,
                                 mm_registry_names(o->choices), mm_registry_what(o->choices));
    snprintf((char *)cfg + o->offset, MM_NAME_LEN, "%s", value);
    return 0;
}

mm_status mm_option_set_choice(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                               size_t len) {
    /* the value's position among the row's choices is what the option stores */
    int index = mm_option_choice_index(o, value);
    if (index < 0) {
        char allowed[128];
        mm_option_allowed_text(o, allowed, sizeof allowed);
        return mm_config_message(err, len, MM_MSG_UNKNOWN_NAME, o->name, value, allowed,
                                 mm_registry_what(NULL));
    }
    *(int *)(void *)((char *)cfg + o->offset) = index;
    return 0;
}

mm_status mm_option_set_path(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                             size_t len) {
    if (!*value) return mm_fail(err, len, "--%s: empty path", o->name);
    if (strlen(value) >= MM_PATH_LEN)
        return mm_fail(err, len, "--%s: path too long (at most %d characters)", o->name,
                       MM_PATH_LEN - 1);
    snprintf((char *)cfg + o->offset, MM_PATH_LEN, "%s", value);
    return 0;
}

mm_status mm_option_set_ints(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                             size_t len) {
    return mm_option_parse_ints(o, value, (mm_int_list *)(void *)((char *)cfg + o->offset), err, len);
}

mm_status mm_option_set_flag(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                             size_t len) {
    (void)value, (void)err, (void)len;
    *(int *)(void *)((char *)cfg + o->offset) = 1;
    return 0;
}
