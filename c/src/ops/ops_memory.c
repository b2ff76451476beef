/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_memory.c — what an operation's setup allocates on one rank for a test, under the launch's
 * options, for the memory check before a launch (bench/memcheck.c).
 *
 * What: the rows whose buffers are fixed multiples of size declare them in the table
 *   (mm_op_buffer_bytes); the one-sided rows and the neighborhood collectives allocate what
 *   their options say — a pair's window of --rma-burst blocks or --rma-window-bytes, a
 *   contention pattern's window of nprocs x --rma-burst blocks, a block per in- and
 *   out-neighbour of the --cart-dims torus or the --graph-file graph — so their own files
 *   compute it with the helpers their setups use (ops_rma.c, ops_rma_contention.c,
 *   ops_neighbor.c), including the check after the test where it allocates beside them.
 * Why: a too-large burst or degree passed the check (the table's blocks assume a burst of 1
 *   and 4 neighbours), and Linux's overcommit then kills a rank mid-launch. */
#include <stdint.h>

#include "mm_config.h"
#include "mm_ops.h"
#include "ops_internal.h"

int64_t mm_op_setup_bytes(const mm_op *op, const mm_config *cfg, int64_t size, int nprocs, int rank, int is_root) {
    if (!op || size < 0 || nprocs < 1) return 0;
    int type_size = 1;
    if (!mm_datatype_lookup(cfg->measure.datatype, NULL, &type_size) || type_size < 1) type_size = 1;
    double bytes;
    if (mm_op_is_rma_contention(op))
        bytes = mm__rmac_setup_bytes(op, size, nprocs, cfg->rma.burst);
    else if (mm_op_uses_rma_sync(op))
        bytes = mm__rma_pair_setup_bytes(op, size, type_size, cfg->rma.burst, cfg->rma.window_bytes);
    else if (mm_op_is_neighbor(op))
        bytes = mm__neighbor_setup_bytes(op, cfg->topo.graph.nodes > 0 ? cfg->topo.graph_text : NULL, cfg->topo.cart_ndims, size,
                                         type_size, rank, cfg->topo.graph.in_max, cfg->topo.graph.out_max);
    else
        return mm_op_buffer_bytes(op, size, nprocs, is_root);
    return bytes >= 9.2e18 ? INT64_MAX : (int64_t)bytes;
}
