/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_table_queries.c — what is asked of the operation table (ops_table.c): lookup by name,
 * the names for --list-ops and messages, the checks of a size, a rank count and an --rma-sync
 * mode against a row, a row's buffers and data volume, and the op facts meta.json and
 * --describe render. Each reads a row's fields (kind, flags, volume, verify and setup hooks);
 * none knows a row by name, so adding a row changes nothing here.
 * Cost: lookups are linear in the table (about a hundred rows). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mm_config.h"
#include "mm_facts.h"
#include "mm_mockups.h"
#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

const char *mm_op_names(void) {
    static char names[4096]; /* filled once: the table is constant */
    if (names[0]) return names;
    size_t used = 0;
    for (size_t i = 0; i < mm_ops_count && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 mm_ops_table[i].name);
    return names;
}

const char *mm_op_volume_formula(const mm_op *op) {
    switch (op ? op->volume : MM_VOL_NONE) {
    case MM_VOL_ZERO: return "0";
    case MM_VOL_SIZE: return "size";
    case MM_VOL_PM1_OVER_P: return "(p-1)/p x size";
    case MM_VOL_2PM1_OVER_P: return "2(p-1)/p x size";
    case MM_VOL_PM1: return "(p-1) x size";
    case MM_VOL_RMA_BURST: return "rma-burst x size";
    case MM_VOL_NEIGHBORS: return "in-neighbours x size";
    default: return NULL;
    }
}

double mm_op_volume_factor(const mm_op *op, int nprocs) {
    double p = nprocs > 0 ? (double)nprocs : 1.0;
    switch (op ? op->volume : MM_VOL_NONE) {
    case MM_VOL_ZERO: return 0.0;
    case MM_VOL_SIZE: return nprocs >= 2 ? 1.0 : 0.0;
    case MM_VOL_PM1_OVER_P: return (p - 1.0) / p;
    case MM_VOL_2PM1_OVER_P: return 2.0 * (p - 1.0) / p;
    case MM_VOL_PM1: return p - 1.0;
    case MM_VOL_RMA_BURST: return -1.0; /* a multiple of --rma-burst: mm_op_facts_of_config */
    case MM_VOL_NEIGHBORS: return -1.0; /* a multiple of --cart-dims' count: the same */
    default: return -1.0;
    }
}

const char *mm_op_size_unit(const mm_op *op) {
    return op && (op->flags & MM_OP_SIZE_IS_DURATION) ? "ns" : "bytes";
}

void mm_op_call_name(const mm_op *op, char *out, size_t len) {
    if (!op || len == 0) return;
    int mpi_named = strcmp(op->kind, MM_OP_KIND_COLLECTIVE) == 0 ||
                    strcmp(op->kind, MM_OP_KIND_ROOTED) == 0 || mm_op_is_nbc(op);
    if (!mpi_named) {
        snprintf(out, len, "%s", op->name);
        return;
    }
    snprintf(out, len, "MPI_%s", op->name);
    if (len > 4 && out[4] >= 'a' && out[4] <= 'z') out[4] = (char)(out[4] - 'a' + 'A');
}

int mm_op_is_nbc(const mm_op *op) { return op && op->kind && strcmp(op->kind, MM_OP_KIND_NBC) == 0; }

mm_status mm_op_inject_error(const mm_op *op, mm_op_args *args) {
    /* one-sided data movement: one byte of the data moved is changed, so that the check after
     * the test fails (ops_rma_check.c) */
    if (op->verify == mm__verify_rma) return mm__inject_rma(args);
    if (op->verify == mm__verify_neighbor) return mm__inject_neighbor(args);
    if (op->verify == mm__verify_rma_contention) return mm__inject_rma_contention(args);
    /* arguments both libraries check on every rank before communicating (a negative count is
     * not checked by Debian's MPICH: it crashes instead) */
    if (op->flags & MM_OP_ROOTED) {
        args->root = args->nprocs; /* MPI_ERR_ROOT */
        return 0;
    }
    if (op->flags & MM_OP_REDUCES) {
        args->reduce_op = MPI_OP_NULL; /* MPI_ERR_OP */
        return 0;
    }
    return MM_E_FAILED;
}

const mm_op *mm_op_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < mm_ops_count; i++)
        if (strcmp(mm_ops_table[i].name, name) == 0) return &mm_ops_table[i];
    return NULL;
}

mm_status mm_op_check_size(const mm_op *op, int64_t size, int type_size, char *why, size_t why_len) {
    if (!op) {
        snprintf(why, why_len, "no operation given");
        return MM_E_INPUT;
    }
    if (op->flags & MM_OP_SIZE_UNUSED) return 0; /* one test at size 0, whatever was asked */
    if (op->flags & MM_OP_SIZE_IS_DURATION) {
        if (size >= 0) return 0;
        snprintf(why, why_len,
                 "size %" PRId64 " is negative; for %s the size is a duration in ns (>= 0)",
                 size, op->name);
        return MM_E_INPUT;
    }
    if (size < 0) {
        snprintf(why, why_len, "size %" PRId64 " is negative; sizes are bytes (>= 0)", size);
        return MM_E_INPUT;
    }
    /* simple-attach: MPI_Buffer_attach takes an int, and a buffer holds at least one message's
     * overhead (MPI_BSEND_OVERHEAD; libraries refuse an empty one) */
    if (op->run == mm__run_simple_attach && (size < MPI_BSEND_OVERHEAD || size > INT_MAX)) {
        snprintf(why, why_len, "size %" PRId64 " is not a buffer MPI_Buffer_attach takes; allowed "
                 "for %s: %d (MPI_BSEND_OVERHEAD) to %d bytes", size, op->name, MPI_BSEND_OVERHEAD, INT_MAX);
        return MM_E_INPUT;
    }
    /* a window or a buffer to attach is bytes of memory (disp_unit 1, MPI_Buffer_attach's int),
     * never a count of --datatype elements: its own constraint asks for no multiple */
    if (op->flags & MM_OP_SIZE_IS_MEMORY) return 0;
    if (type_size <= 0) {
        snprintf(why, why_len, "the datatype size %d is not positive", type_size);
        return MM_E_INPUT;
    }
    if (size % type_size != 0) {
        int64_t below = size - size % type_size;
        snprintf(why, why_len,
                 "size %" PRId64 " is not a multiple of the datatype size (%d bytes); "
                 "nearest allowed: %" PRId64 " or %" PRId64,
                 size, type_size, below, below + type_size);
        return MM_E_INPUT;
    }
    if (size / type_size > INT_MAX) {
        snprintf(why, why_len,
                 "size %" PRId64 " is too large: %" PRId64 " elements exceed MPI's count limit "
                 "(%d)",
                 size, size / type_size, INT_MAX);
        return MM_E_INPUT;
    }
    return 0;
}

int64_t mm_op_buffer_bytes(const mm_op *op, int64_t size, int nprocs, int is_root) {
    if (!op || size <= 0 || nprocs < 1) return 0;
    if (op->flags & (MM_OP_SIZE_UNUSED | MM_OP_SIZE_IS_DURATION)) return 0;
    const mm_op_buffers *b = &op->buffers;
    double blocks = b->blocks + (double)b->blocks_x_nprocs * nprocs;
    if (is_root) blocks += b->root_blocks + (double)b->root_blocks_x_nprocs * nprocs;
    double bytes = blocks * (double)size; /* double: sizes x nprocs can exceed int64 */
    return bytes >= 9.2e18 ? INT64_MAX : (int64_t)bytes;
}

mm_status mm_op_check_nprocs(const mm_op *op, int nprocs, char *why, size_t why_len) {
    if (!op) return 0;
    /* Even counts only: a ping-pong launch pairs ranks, and an odd count leaves
     * one rank without a partner in patterns that pair every rank (SKaMPI §2.1). */
    if ((op->flags & MM_OP_PAIR) && (nprocs < 2 || nprocs % 2 != 0)) {
        snprintf(why, why_len, "%s needs an even number of ranks, at least 2 (got %d)", op->name,
                 nprocs);
        return MM_E_INPUT;
    }
    if ((op->flags & MM_OP_NEEDS_TWO) && nprocs < 2) {
        snprintf(why, why_len, "%s needs at least 2 ranks: a master and a worker (got %d)",
                 op->name, nprocs);
        return MM_E_INPUT;
    }
    return 0;
}

int mm_op_available(const mm_op *op, char *why, size_t why_len) {
    if (!op || !op->kind || strcmp(op->kind, MM_OP_KIND_PERSISTENT) != 0) return 1;
    return mm_persistent_available(why, why_len);
}

int mm_op_is_neighbor(const mm_op *op) { return op && strstr(op->name, "neighbor_") != NULL; }

int mm_op_is_rma(const mm_op *op) { return op && op->kind && strcmp(op->kind, MM_OP_KIND_RMA) == 0; }
int mm_op_uses_rma_sync(const mm_op *op) {
    return mm_op_is_rma(op) && (op->verify == mm__verify_rma || op->verify == mm__verify_rma_contention);
}
int mm_op_uses_rma_burst(const mm_op *op) {
    return mm_op_uses_rma_sync(op) && (op->volume == MM_VOL_RMA_BURST || mm_op_is_rma_contention(op));
}
int mm_op_is_rma_contention(const mm_op *op) { return op && op->verify == mm__verify_rma_contention; }

mm_status mm_op_check_rma_sync(const mm_op *op, int sync, char *why, size_t why_len) {
    if (!mm_op_uses_rma_sync(op)) return 0;
    /* IMB-RMA times its contention patterns in one lock_all epoch; fence is every rank's
     * active-target twin. Per-target locks or groups would be other patterns. */
    if (mm_op_is_rma_contention(op) && sync != MM_RMA_FENCE && sync != MM_RMA_FLUSH && sync != MM_RMA_FLUSH_LOCAL) {
        snprintf(why, why_len, "%s: a contention pattern runs in a lock_all epoch or between fences; allowed "
                 "--rma-sync: fence, lock-all-flush, lock-all-flush-local", op->name);
        return MM_E_INPUT;
    }
    int passive = sync != MM_RMA_FENCE && sync != MM_RMA_PSCW;
    if (passive || (op->setup != mm__setup_rma_rput && op->setup != mm__setup_rma_rget)) return 0;
    snprintf(why, why_len, "%s: request-based MPI_Rput/MPI_Rget are allowed only in passive-target "
             "epochs (MPI-3.1 section 11.3.5); allowed --rma-sync: lock, lock-shared, "
             "lock-all-flush, lock-all-flush-local", op->name);
    return MM_E_INPUT;
}

int64_t mm_op_rma_window_need(const mm_op *op, int64_t size, int type_size, int burst) {
    if (!mm_op_is_rma(op)) return 0;
    if (op->flags & MM_OP_SIZE_UNUSED) return type_size;
    return mm_op_uses_rma_burst(op) ? size * (burst > 0 ? burst : 1) : size;
}

int mm_op_uses_workpieces(const mm_op *op) { return op && (op->flags & MM_OP_WORKPIECES); }

double mm_op_bytes_per_size(const mm_op *op, const mm_config *cfg, int nprocs) {
    if (!mm_op_volume_formula(op)) return -1.0;
    if (op->volume == MM_VOL_RMA_BURST) return nprocs >= 2 ? (double)cfg->rma.burst : 0.0;
    /* the rank with the most in-neighbours receives the most: 2 x ndims on the torus */
    if (op->volume == MM_VOL_NEIGHBORS)
        return cfg->topo.graph.nodes > 0 ? (double)cfg->topo.graph.in_max
               : nprocs >= 2      ? 2.0 * (cfg->topo.cart_ndims > 0 ? cfg->topo.cart_ndims : 2)
                                  : 0.0;
    return mm_op_volume_factor(op, nprocs);
}

int mm_op_facts_of_config(const mm_config *cfg, int nprocs, mm_op_facts *out, int max) {
    int n = 0;
    for (int i = 0; i < cfg->nops && i < MM_MAX_OPS && n < max; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (!op) continue;
        mm_op_facts *f = &out[n++];
        f->name = op->name;
        f->kind = op->kind;
        f->finish_apart = (op->flags & MM_OP_FINISH_APART) != 0;
        f->size_unit = mm_op_size_unit(op);
        f->round_trip = (op->flags & MM_OP_ROUND_TRIP) != 0;
        f->uses_pair = (op->flags & MM_OP_PAIR) != 0;
        f->volume_formula = mm_op_volume_formula(op);
        f->bytes_per_size = f->volume_formula ? mm_op_bytes_per_size(op, cfg, nprocs) : 0.0;
        f->mockup_of = mm_mockup_of(op) ? mm_mockup_of(op)->of : NULL;
    }
    return n;
}
