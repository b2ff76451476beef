/* SPDX-License-Identifier: BSD-3-Clause */
/* parse_space.c — the options that span the measurement space beyond operations and sizes:
 * --batch (IMB's measurement scheme MS2: N calls back to back timed once; Hoefler, Schneider &
 * Lumsdaine 2010 §1.2 on its pipelining error) checked against the process sync and the
 * operations; --nprocs (sub-communicators of the first k ranks: SKaMPI, NBCBench) against what
 * a sub-communicator test cannot do yet; --workpieces (mw-workpieces: one test per value) against
 * --sizes auto; --root and --nprocs with the number of ranks (mm_config_check_nprocs). */
#include <string.h>

#include "parse_internal.h"

#include "mm_nrep.h"
#include "mm_ops.h"

/* What a test on a sub-communicator cannot do (bench/launch_tests.c runs the loop, the process
 * sync and the gather on the first k ranks only): an option or op that needs every rank of the
 * launch, or a collective of its own on them. 0 or MM_E_INPUT. */
static mm_status mm__check_sub_comms(const mm_config *cfg, char *err, size_t len) {
    if (cfg->plan.comm_sizes.n == 0) return 0;
    const char *clash = cfg->adaptive.nrep_rule != MM_NREP_FIXED ? "--nrep auto"
                        : cfg->adaptive.sizes_auto               ? "--sizes auto"
                        : cfg->counters.mpit_pvars[0]            ? "--mpit-pvars"
                        : cfg->counters.papi_events[0]           ? "--papi"
                        : cfg->counters.likwid_group[0]          ? "--likwid"
                        : strcmp(cfg->procsync, "harmonize") == 0 ? "--procsync harmonize"
                                                                  : NULL;
    if (clash)
        return mm_fail(err, len, "--nprocs with %s: not supported on sub-communicators (it runs "
                       "collectives on every rank of the launch during a test); allowed: one of "
                       "the two", clash);
    for (int i = 0; i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (op && (mm_op_is_rma(op) || mm_op_is_neighbor(op) || mm_op_uses_rma_sync(op) ||
                   (op->flags & MM_OP_PAIR)))
            return mm_fail(err, len, "--nprocs with %s: ping-pongs, one-sided and neighborhood "
                           "operations run on every rank of the launch (their pair, window or "
                           "topology); allowed: collectives, master-worker, simple calls, delay",
                           op->name);
    }
    return 0;
}

mm_status mm__config_check_space_nprocs(const mm_config *cfg, int nprocs, char *err, size_t len) {
    for (int i = 0; i < cfg->plan.comm_sizes.n; i++)
        if (cfg->plan.comm_sizes.v[i] > nprocs)
            return mm_fail(err, len, "--nprocs: %d is larger than the launch (%d ranks); allowed: "
                           "sizes from 1 to %d, comma-separated", cfg->plan.comm_sizes.v[i], nprocs, nprocs);
    int rooted = 0;
    for (int i = 0; i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (op && (op->flags & MM_OP_ROOTED)) rooted = 1;
    }
    if (!rooted) return 0;
    /* a root must be a rank of every communicator a test runs on: below the smallest size */
    int sizes[MM_MAX_LIST], n = mm_config_comm_sizes(cfg, nprocs, sizes), smallest = nprocs;
    for (int k = 0; k < n; k++) smallest = sizes[k] < smallest ? sizes[k] : smallest;
    for (int i = 0; i < cfg->plan.roots.n; i++)
        if (cfg->plan.roots.v[i] >= smallest)
            return smallest == nprocs
                       ? mm_fail(err, len, "--root: %d is not a rank of this launch; allowed: 0 to "
                                 "%d, comma-separated, or all", cfg->plan.roots.v[i], nprocs - 1)
                       : mm_fail(err, len, "--root: %d is not a rank of the sub-communicator of %d "
                                 "ranks (--nprocs); allowed: 0 to %d, comma-separated, or all",
                                 cfg->plan.roots.v[i], smallest, smallest - 1);
    int nroots = cfg->plan.roots.all ? nprocs : cfg->plan.roots.n;
    if (cfg->adaptive.sizes_auto && nroots > 1)
        return mm_fail(err, len, "--root: %d roots with --sizes auto (its refinement judges one "
                       "curve per operation); allowed: one root with --sizes auto", nroots);
    return 0;
}

mm_status mm__config_check_space(const mm_config *cfg, char *err, size_t len) {
    int rc = mm__check_sub_comms(cfg, err, len);
    if (rc) return rc;
    /* --workpieces LIST: one test per value; the refinement of --sizes auto judges one curve per
     * operation (as with several roots) */
    if (cfg->adaptive.sizes_auto && cfg->plan.workpieces.n > 1)
        return mm_fail(err, len, "--workpieces: %d values with --sizes auto (its refinement judges "
                       "one curve per operation); allowed: one value with --sizes auto",
                       cfg->plan.workpieces.n);
    if (cfg->measure.batch <= 1) return 0;
    /* a window, a round or a harmonized start is planned for one call: only the schemes without
     * a planned start take a batch (none: IMB's MS2, one barrier per test; barrier: one per
     * repetition) */
    if (strcmp(cfg->procsync, "none") != 0 && strcmp(cfg->procsync, "barrier") != 0)
        return mm_fail(err, len, "--batch %d with --procsync %s: a batch of calls timed once "
                       "(IMB's MS2) has no planned start; allowed: --procsync none (IMB's "
                       "scheme) or barrier, or --batch 1", cfg->measure.batch, cfg->procsync);
    for (int i = 0; i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (!op) continue; /* named in --ops: checked after */
        if (mm_op_is_nbc(op))
            return mm_fail(err, len, "--batch %d with %s: a nonblocking collective's repetition "
                           "is timed in its parts (post, compute, wait), one call each; allowed: "
                           "--batch 1 with nonblocking collectives", cfg->measure.batch, op->name);
        if (op->after)
            return mm_fail(err, len, "--batch %d with %s: each call needs a clean-up outside the "
                           "timed region (%s); allowed: --batch 1 with it", cfg->measure.batch, op->name,
                           op->pattern);
    }
    return 0;
}
