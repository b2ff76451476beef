/* parse_space.c — the options that span the measurement space beyond operations and sizes:
 * --batch (IMB's measurement scheme MS2: N calls back to back timed once; Hoefler, Schneider &
 * Lumsdaine 2010 §1.2 on its pipelining error) checked against the process sync and the
 * operations. --root is checked with the number of ranks (mm_config_check_nprocs). */
#include <string.h>

#include "parse_internal.h"

#include "mm_ops.h"

int mm__config_check_space(const mm_config *cfg, char *err, size_t len) {
    if (cfg->batch <= 1) return 0;
    /* a window, a round or a harmonized start is planned for one call: only the schemes without
     * a planned start take a batch (none: IMB's MS2, one barrier per test; barrier: one per
     * repetition) */
    if (strcmp(cfg->procsync, "none") != 0 && strcmp(cfg->procsync, "barrier") != 0)
        return mm_fail(err, len, "--batch %d with --procsync %s: a batch of calls timed once "
                       "(IMB's MS2) has no planned start; allowed: --procsync none (IMB's "
                       "scheme) or barrier, or --batch 1", cfg->batch, cfg->procsync);
    for (int i = 0; i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (!op) continue; /* named in --ops: checked after */
        if (mm_op_is_nbc(op))
            return mm_fail(err, len, "--batch %d with %s: a nonblocking collective's repetition "
                           "is timed in its parts (post, compute, wait), one call each; allowed: "
                           "--batch 1 with nonblocking collectives", cfg->batch, op->name);
        if (op->after)
            return mm_fail(err, len, "--batch %d with %s: each call needs a clean-up outside the "
                           "timed region (%s); allowed: --batch 1 with it", cfg->batch, op->name,
                           op->pattern);
    }
    return 0;
}
