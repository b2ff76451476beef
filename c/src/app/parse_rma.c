/* SPDX-License-Identifier: BSD-3-Clause */
/* parse_rma.c — the checks of the one-sided ops' options that need more than one option: a
 * synchronization mode for every row that moves data, a mode the row allows (request-based
 * operations only in passive-target epochs), a datatype compare-and-swap takes, and a window no
 * smaller than what the largest size needs; and --cart-dims of the neighborhood collectives.
 * With them the setter of --rma-sync (its row in options.c), which records that it was given.
 * Each refusal is one line (exit 2, nothing written). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mm_ops.h"
#include "parse_internal.h"

mm_status mm__set_rma_sync(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                           size_t len) {
    int rc = mm_option_set_choice(o, value, cfg, err, len);
    if (rc == 0) cfg->rma.sync_given = 1; /* one-sided data movement needs it */
    return rc;
}

mm_status mm__config_check_rma(mm_config *cfg, int type_size, char *err, size_t len) {
    int64_t largest = 0;
    for (int s = 0; s < cfg->nsizes; s++)
        if (cfg->sizes[s] > largest) largest = cfg->sizes[s];
    if (cfg->adaptive.sizes_auto && cfg->adaptive.sizes_max > largest) largest = cfg->adaptive.sizes_max;
    for (int i = 0; i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (mm_op_is_rma(op)) cfg->rma.used = 1;
        if (mm_op_is_neighbor(op)) cfg->topo.cart_used = 1;
        if (!mm_op_uses_rma_sync(op)) continue;
        if (!cfg->rma.sync_given)
            return mm_fail(err, len, "--ops %s: a one-sided operation needs its synchronization "
                            "mode; give --rma-sync, allowed: %s", op->name, MM_RMA_SYNC_WORDS);
        char why[256];
        if (mm_op_check_rma_sync(op, cfg->rma.sync, why, sizeof why) != 0)
            return mm_fail(err, len, "--rma-sync: %s", why);
        if (strcmp(op->name, "rma-cas") == 0 && strcmp(cfg->measure.datatype, "byte") != 0 &&
            strcmp(cfg->measure.datatype, "int") != 0 && strcmp(cfg->measure.datatype, "long") != 0)
            return mm_fail(err, len, "--datatype %s: rma-cas (MPI_Compare_and_swap) takes only "
                            "integer and byte datatypes (MPI-3.1 section 11.3.6); allowed: byte, "
                            "int, long", cfg->measure.datatype);
        if (mm_op_is_rma_contention(op) && cfg->rma.window_bytes > 0)
            return mm_fail(err, len, "--rma-window-bytes with --ops %s: a contention pattern's window "
                            "is nprocs x rma-burst x size, made to fit; allowed: auto", op->name);
        int64_t need = mm_op_rma_window_need(op, largest, type_size, cfg->rma.burst);
        if (cfg->rma.window_bytes > 0 && cfg->rma.window_bytes < need)
            return mm_fail(err, len, "--rma-window-bytes %" PRId64 " is smaller than %s needs at "
                            "size %" PRId64 " (%" PRId64 " bytes%s); allowed: at least %" PRId64
                            ", or auto", cfg->rma.window_bytes, op->name, largest, need,
                            mm_op_uses_rma_burst(op) ? ", rma-burst x size" : "", need);
    }
    return 0;
}

mm_status mm__parse_cart_dims(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                              size_t len) {
    (void)o;
    cfg->topo.cart_ndims = 0;
    if (strcmp(value, "auto") == 0) return 0;
    const char *p = value;
    for (;;) {
        char *end;
        long d = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : -1;
        if (d < 1 || d > 16777216 || (d >= 0 && *end != ',' && *end != '\0'))
            return mm_fail(err, len, "--cart-dims: '%s' is not dimensions; allowed: whole numbers "
                            ">= 1, comma-separated (at most %d), or auto", value, MM_CART_MAX_DIMS);
        if (cfg->topo.cart_ndims == MM_CART_MAX_DIMS)
            return mm_fail(err, len, "--cart-dims: '%s' has more than %d dimensions; allowed: at "
                            "most %d, or auto", value, MM_CART_MAX_DIMS, MM_CART_MAX_DIMS);
        cfg->topo.cart_dims[cfg->topo.cart_ndims++] = (int)d;
        if (*end == '\0') return 0;
        p = end + 1;
    }
}

mm_status mm__config_check_cart(const mm_config *cfg, int nprocs, char *err, size_t len) {
    int used = 0;
    for (int i = 0; i < cfg->nops; i++) used |= mm_op_is_neighbor(mm_op_find(cfg->ops[i]));
    if (!used || cfg->topo.cart_ndims == 0) return 0;
    long long product = 1;
    for (int d = 0; d < cfg->topo.cart_ndims; d++) product *= cfg->topo.cart_dims[d];
    if (product == nprocs) return 0;
    return mm_fail(err, len, "--cart-dims: the topology holds %lld ranks, the launch has %d; "
                    "allowed: dimensions whose product is %d, or auto", product, nprocs, nprocs);
}
