/* SPDX-License-Identifier: BSD-3-Clause */
/* parse_adaptive.c — the options of adaptive measurement (docs/GUIDE.md, "How many measurements
 * are enough"): --nrep auto[:RULE] with its rule's options, and --sizes auto:MIN:MAX[:xFACTOR]
 * with its bounds: the setters of their rows of the option table (options.c), refused in one line
 * naming the option and the value; how they agree with the other options is checked once all are
 * read (parse_adaptive_check.c).
 * The rules themselves are in c/src/bench/adaptive.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_internal.h"
#include "mm_adaptive.h"
#include "mm_ops.h"

/* --nrep N, or auto[:RULE]: the rule is stored, the number waits for --nrep-max (checked after
 * all options are read, mm__config_check_adaptive). */
mm_status mm__config_parse_nrep(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                                size_t len) {
    if (strncmp(value, "auto", 4) != 0 || (value[4] != '\0' && value[4] != ':')) {
        cfg->adaptive.nrep_rule = MM_NREP_FIXED;
        return mm_option_parse_number(o, value, cfg, err, len);
    }
    const char *rule = value[4] ? value + 5 : "ci";
    if (strcmp(rule, "ci") == 0) {
        cfg->adaptive.nrep_rule = MM_NREP_CI;
    } else if (strcmp(rule, "rse") == 0) {
        cfg->adaptive.nrep_rule = MM_NREP_RSE;
    } else {
        char allowed[256];
        mm_option_allowed_text(o, allowed, sizeof allowed);
        /* the words of every number option's refusal, as mpimeter run says them too */
        return mm_config_message(err, len, MM_MSG_NOT_WHOLE, o->name, value, allowed, NULL);
    }
    return 0;
}

/* --sizes auto:MIN:MAX[:xFACTOR]: SKaMPI's initial grid (§3.2), MIN x FACTOR^k below MAX, and
 * MAX; the rest is added while the launch runs. */
mm_status mm__config_parse_sizes_auto(const char *value, mm_config *cfg, char *err, size_t len) {
    static const char *allowed = "allowed: auto:MIN:MAX[:xFACTOR] with whole numbers 1 <= MIN < MAX "
                                 "and FACTOR >= 2 (default 2)";
    long long min = -1, max = -1, factor = 2;
    int used = 0;
    int got = sscanf(value, "auto:%lld:%lld%n", &min, &max, &used);
    if (got == 2 && value[used] == ':') {
        char *end;
        errno = 0;
        factor = value[used + 1] == 'x' ? strtoll(value + used + 2, &end, 10) : -1;
        if (errno || factor < 0 || end == value + used + 2 || *end) got = 0;
    } else if (got == 2 && value[used] != '\0') {
        got = 0;
    }
    if (got != 2 || min < 0 || max < 0)
        return mm_fail(err, len, "--sizes: '%s' is not auto:MIN:MAX; %s", value, allowed);
    if (min < 1 || min >= max || factor < 2)
        return mm_fail(err, len, "--sizes %s: the bounds must increase from MIN >= 1 (%lld) to MAX "
                        "(%lld), with FACTOR >= 2 (%lld); %s", value, min, max, factor, allowed);
    cfg->nsizes = 0;
    for (long long s = min; s < max; s = s > LLONG_MAX / factor ? max : s * factor) {
        if (cfg->nsizes >= MM_MAX_SIZES - 1)
            return mm_fail(err, len, "--sizes %s: more than %d sizes in the initial grid; %s",
                            value, MM_MAX_SIZES, allowed);
        cfg->sizes[cfg->nsizes++] = s;
    }
    cfg->sizes[cfg->nsizes++] = max;
    cfg->adaptive.sizes_auto = 1;
    cfg->adaptive.sizes_min = min;
    cfg->adaptive.sizes_max = max;
    cfg->adaptive.sizes_factor = (int)(factor > INT_MAX ? INT_MAX : factor);
    return 0;
}
