/* SPDX-License-Identifier: BSD-3-Clause */
/* parse_adaptive_check.c — once every option is read: the options of --nrep auto and --sizes
 * auto (parse_adaptive.c) only with them, and bounds that agree. Apart from their setters because
 * it reads the option table (which options were given), and the table names the setters. */
#include <stdio.h>
#include <string.h>

#include "parse_internal.h"
#include "mm_adaptive.h"
#include "mm_ops.h"

/* --nrep auto and --sizes auto: their options only with them, bounds that agree; then --nrep
 * holds --nrep-max, the most a test may record (what buffers and the memory check size for). */
mm_status mm__config_check_adaptive(mm_config *cfg, const char *seen, const char *const *given, char *err,
                                    size_t len) {
    static const char *const nrep_options[] = {"nrep-min", "nrep-max", "precision", "nrep-confidence",
                                               "nrep-every", "nrep-budget-s"};
    static const char *const sizes_options[] = {"sizes-precision", "sizes-budget"};
    size_t n;
    const mm_option_spec *table = mm_options(&n);
    const mm_option_spec *nrep = mm_option_find("nrep", 4);
    const char *nrep_text = seen[nrep - table] ? given[nrep - table] : "300 (the default)";
    for (size_t k = 0; k < sizeof nrep_options / sizeof nrep_options[0]; k++) {
        const mm_option_spec *o = mm_option_find(nrep_options[k], strlen(nrep_options[k]));
        if (!seen[o - table]) continue;
        if (cfg->adaptive.nrep_rule == MM_NREP_FIXED)
            return mm_fail(err, len, "--%s %s applies only to --nrep auto[:RULE], but --nrep is %s",
                            o->name, given[o - table], nrep_text);
        if (strcmp(o->name, "nrep-confidence") == 0 && cfg->adaptive.nrep_rule != MM_NREP_CI)
            return mm_fail(err, len, "--nrep-confidence %s applies only to --nrep auto:ci (the median's "
                            "interval), but --nrep is %s", given[o - table], nrep_text);
    }
    if (cfg->adaptive.nrep_rule != MM_NREP_FIXED) {
        if (cfg->adaptive.nrep_min > cfg->adaptive.nrep_max)
            return mm_fail(err, len, "--nrep-min %d is above --nrep-max %d; allowed: --nrep-min at most "
                            "--nrep-max", cfg->adaptive.nrep_min, cfg->adaptive.nrep_max);
        cfg->nrep = cfg->adaptive.nrep_max;
    }
    const mm_option_spec *sizes = mm_option_find("sizes", 5);
    for (size_t k = 0; k < sizeof sizes_options / sizeof sizes_options[0]; k++) {
        const mm_option_spec *o = mm_option_find(sizes_options[k], strlen(sizes_options[k]));
        if (seen[o - table] && !cfg->adaptive.sizes_auto)
            return mm_fail(err, len, "--%s %s applies only to --sizes auto:MIN:MAX, but --sizes is %s",
                            o->name, given[o - table],
                            seen[sizes - table] ? given[sizes - table] : "8:65536:x8,65536 (the default)");
    }
    if (cfg->adaptive.sizes_auto) {
        int sized = 0;
        for (int i = 0; i < cfg->nops; i++) {
            const mm_op *op = mm_op_find(cfg->ops[i]);
            sized += op && !(op->flags & MM_OP_SIZE_UNUSED);
        }
        if (!sized)
            return mm_fail(err, len, "--sizes %s applies only to operations that take a size, and --ops "
                            "has none", given[sizes - table]);
        /* every test, the added ones too, must fit the launch's plan */
        long most = (long)cfg->nops * (cfg->nsizes + cfg->adaptive.sizes_budget);
        if (most > (long)MM_MAX_OPS * MM_MAX_SIZES)
            return mm_fail(err, len, "--sizes-budget %d: %d operations x (%d grid sizes + %d added) "
                            "exceed the %d tests a launch can hold; allowed: a smaller --sizes-budget",
                            cfg->adaptive.sizes_budget, cfg->nops, cfg->nsizes, cfg->adaptive.sizes_budget,
                            MM_MAX_OPS * MM_MAX_SIZES);
    }
    (void)n;
    return 0;
}
