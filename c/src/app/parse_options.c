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

int mm_option_parse_number(const mm_option_spec *o, const char *text, mm_config *cfg, char *err,
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

int mm_option_parse_ints(const mm_option_spec *o, const char *text, mm_int_list *out, char *err,
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
