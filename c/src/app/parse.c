/* SPDX-License-Identifier: BSD-3-Clause */
/* parse.c — parsing and validating mpimeter-bench's options, once, on rank 0.
 *
 * In app/ because a configuration is valid only against every registry (operations, clock and
 * process syncs, timers, datatypes, counters, the output folder): the one place above them all.
 * Every option is a row of the table in options.c (name, type, bounds, default, help, setter);
 * each value given goes through its row's setter, which checks its syntax; the checks that need the
 * registries or several options are in parse_validate.c (and parse_*.c beside it), with
 * mm_config_check_nprocs for what needs the communicator size. Every
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

void mm_config_defaults(mm_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->run.mode = MM_MODE_BENCH;
    cfg->adaptive.nrep_rule = MM_NREP_FIXED;
    /* The rows marked MM_OPT_F_DEFAULTED start at their default_text (written in the option
     * table and nowhere else); the others at 0, which means "auto", "none" or the default of the
     * module that owns it (the clock syncs' --nfit, --min-rounds ..., --window-us, --resync-s). */
    size_t n;
    const mm_option_spec *table = mm_options(&n);
    for (size_t i = 0; i < n; i++) {
        const mm_option_spec *o = &table[i];
        char err[256];
        /* the table's own default always parses (test_config.c checks the values) */
        if ((o->flags & MM_OPT_F_DEFAULTED) && o->default_text)
            o->set(o, o->default_text, cfg, err, sizeof err);
    }
    cfg->adaptive.sizes_factor = 2; /* --sizes auto:MIN:MAX without :xF (its syntax, not an option) */
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

mm_status mm_config_parse(mm_config *cfg, int argc, char **argv, char *err, size_t len) {
    mm_config_defaults(cfg);
    int rc = mm_parse_sizes("8:65536:x8,65536", cfg->sizes, MM_MAX_SIZES, &cfg->nsizes, err, len);
    if (rc) return rc;
    rc = mm__split_names("ops", "allreduce,bcast,alltoall,barrier", cfg->ops, MM_MAX_OPS, &cfg->nops, err, len);
    if (rc) return rc;
    mm__argv_json(cfg, argc, argv);
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
        rc = o->set(o, value, cfg, err, len);
        if (rc) return rc;
    }
    if (cfg->run.mode == MM_MODE_LIST_ALGORITHMS) return mm__config_check_op_names(cfg, err, len);
    if (cfg->run.mode == MM_MODE_HELP || cfg->run.mode == MM_MODE_LIST_OPS || cfg->run.mode == MM_MODE_VERSION ||
        cfg->run.mode == MM_MODE_DESCRIBE || cfg->run.mode == MM_MODE_LIST_PVARS || cfg->run.mode == MM_MODE_LIST_ALGORITHMS)
        return 0;
    rc = mm__config_check_modes(cfg, seen, err, len);
    if (rc) return rc;
    rc = mm__config_quick_defaults(cfg, seen, table, err, len);
    if (rc) return rc;
    rc = mm__config_check_scoped_options(cfg, seen, err, len);
    if (rc) return rc;
    rc = mm__config_check_adaptive(cfg, seen, given, err, len);
    if (rc) return rc;
    if (!cfg->plan.seed_given) {
        /* Drawn from the clock and pid; recorded in meta.json so the order can be replayed. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
        cfg->plan.seed = mm_rand_next(&s) % 1000000000000ULL;
    }
    const mm_option_spec *clocksync = mm_option_find("clocksync", strlen("clocksync"));
    rc = mm__config_validate(cfg, clocksync && seen[clocksync - table], err, len);
    return rc ? rc : mm__config_check_method_options(cfg, seen, err, len);
}
