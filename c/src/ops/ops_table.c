/* ops_table.c — THE operation table: one row per operation (name, who sends what to whom, the
 * constraints on its size, flags, and its setup/run/teardown), plus lookup, the size check
 * and --list-ops.
 *
 * Why: the benchmark has one measurement loop; an operation is data. Adding an operation is
 * adding a row (MPICH lists its algorithms with their restrictions the same way); OSU and IMB
 * copy the loop per operation instead.
 * Size: for every row but barrier and delay, size is in bytes and is the block one rank sends
 * to one peer (for allreduce/bcast/reduce/scan/exscan the whole vector; reduce_scatter: the
 * whole vector, split as evenly as possible; reduce_scatter_block: each rank's result block);
 * count = size / datatype size elements. Each row's pattern says it in words.
 * Buffers: each row ends with the blocks of `size` bytes its setup allocates per rank (every
 * rank, then the root's extra), for the memory check before a launch allocates anything.
 * Nonblocking collectives (kind "nonblocking") have the blocking twin's size, buffers and
 * constraints; their timed call is NBCBench's post + computation + wait (ops_nbc.c).
 * Cost: lookups are linear in the table (33 rows).
 * Paper: SKaMPI (Reussner et al. 1998, §2: operations as parameterized patterns);
 * Hunold & Carpen-Amarie 2016 §3.2 (one timed call per measurement). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"

#define MM__C_SIZE "size: bytes, a multiple of the datatype size (0 allowed)"
#define MM__C_ROOT "; root: --root"
#define MM__C_REDUCE                                                                            \
    "; --reduce-op must be defined for --datatype (char: none; byte: band/bor/bxor only; "      \
    "float/double: no band/bor/bxor)"
#define MM__C_NBLOCKS "; buffers of nprocs x size bytes"

#define MM__COLL(op) mm__setup_##op, mm__run_##op, mm__coll_teardown
#define MM__NBC(op) mm__setup_i##op, mm__run_nbc, mm__nbc_teardown

const mm_op mm_ops_table[] = {
    {"allgather", MM_OP_KIND_COLLECTIVE,
     "every rank sends its block of size bytes to every rank; each receives nprocs x size bytes",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(allgather), {1, 1, 0, 0}},
    {"allgatherv", MM_OP_KIND_COLLECTIVE,
     "as allgather (size bytes from each rank) through MPI_Allgatherv; block i lands at "
     "displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(allgatherv), {1, 1, 0, 0}},
    {"allreduce", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes; every rank receives the elementwise "
     "reduction (size bytes)",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__COLL(allreduce), {2, 0, 0, 0}},
    {"alltoall", MM_OP_KIND_COLLECTIVE,
     "every rank sends a distinct block of size bytes to every rank (nprocs x size bytes out "
     "and in per rank)",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(alltoall), {0, 2, 0, 0}},
    {"alltoallv", MM_OP_KIND_COLLECTIVE,
     "as alltoall (size bytes per pair of ranks) through MPI_Alltoallv; on both sides block i "
     "is at displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(alltoallv), {0, 2, 0, 0}},
    {"barrier", MM_OP_KIND_COLLECTIVE, "no data: no rank leaves before every rank has entered",
     "size: unused (one test at size 0, whatever --sizes says)", MM_OP_SIZE_UNUSED,
     MM__COLL(barrier), {0, 0, 0, 0}},
    {"bcast", MM_OP_KIND_ROOTED, "root sends size bytes to every rank", MM__C_SIZE MM__C_ROOT, MM_OP_ROOTED | MM_OP_FINISH_APART,
     MM__COLL(bcast), {1, 0, 0, 0}},
    {"exscan", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes; rank r receives the elementwise reduction "
     "over ranks 0..r-1 (rank 0 receives nothing defined)",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__COLL(exscan), {2, 0, 0, 0}},
    {"gather", MM_OP_KIND_ROOTED, "every rank sends size bytes to root; root receives nprocs x size bytes",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(gather),
     {1, 0, 0, 1}},
    {"gatherv", MM_OP_KIND_ROOTED,
     "as gather (size bytes from each rank) through MPI_Gatherv; at root block i lands at "
     "displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(gatherv),
     {1, 0, 0, 1}},
    {"reduce", MM_OP_KIND_ROOTED,
     "every rank contributes a vector of size bytes; root receives the elementwise reduction "
     "(size bytes)",
     MM__C_SIZE MM__C_ROOT MM__C_REDUCE, MM_OP_REDUCES | MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(reduce),
     {1, 0, 1, 0}},
    {"reduce_scatter", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes (count elements); the elementwise reduction "
     "is split: rank i receives count/nprocs elements, one more if i < count % nprocs",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__COLL(reduce_scatter), {1, 0, 0, 0}},
    {"reduce_scatter_block", MM_OP_KIND_COLLECTIVE,
     "every rank contributes nprocs blocks of size bytes; they are reduced elementwise and "
     "rank i receives block i (size bytes)",
     MM__C_SIZE MM__C_REDUCE MM__C_NBLOCKS, MM_OP_REDUCES, MM__COLL(reduce_scatter_block),
     {1, 1, 0, 0}},
    {"scan", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes; rank r receives the elementwise reduction "
     "over ranks 0..r",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__COLL(scan), {2, 0, 0, 0}},
    {"scatter", MM_OP_KIND_ROOTED,
     "root sends a distinct block of size bytes to every rank (nprocs x size bytes leave root)",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(scatter),
     {1, 0, 0, 1}},
    {"scatterv", MM_OP_KIND_ROOTED,
     "as scatter (size bytes to each rank) through MPI_Scatterv; at root block i is at "
     "displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART,
     MM__COLL(scatterv), {1, 0, 0, 1}},
    {"ibarrier", MM_OP_KIND_NBC,
     "no data: MPI_Ibarrier + computation + MPI_Wait",
     "size: unused (one test at size 0, whatever --sizes says)", MM_OP_SIZE_UNUSED, MM__NBC(barrier), {0, 0, 0, 0}},
    {"ibcast", MM_OP_KIND_NBC,
     "as bcast (same size, buffers) through MPI_Ibcast + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT, MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(bcast), {1, 0, 0, 0}},
    {"igather", MM_OP_KIND_NBC,
     "as gather (same size, buffers) through MPI_Igather + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(gather), {1, 0, 0, 1}},
    {"igatherv", MM_OP_KIND_NBC,
     "as gatherv (same size, buffers and i*(count+1) layout) through MPI_Igatherv + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(gatherv), {1, 0, 0, 1}},
    {"iscatter", MM_OP_KIND_NBC,
     "as scatter (same size, buffers) through MPI_Iscatter + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(scatter), {1, 0, 0, 1}},
    {"iscatterv", MM_OP_KIND_NBC,
     "as scatterv (same size, buffers and i*(count+1) layout) through MPI_Iscatterv + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(scatterv), {1, 0, 0, 1}},
    {"iallgather", MM_OP_KIND_NBC,
     "as allgather (same size, buffers) through MPI_Iallgather + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(allgather), {1, 1, 0, 0}},
    {"iallgatherv", MM_OP_KIND_NBC,
     "as allgatherv (same size, buffers and i*(count+1) layout) through MPI_Iallgatherv + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(allgatherv), {1, 1, 0, 0}},
    {"ialltoall", MM_OP_KIND_NBC,
     "as alltoall (same size, buffers) through MPI_Ialltoall + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(alltoall), {0, 2, 0, 0}},
    {"ialltoallv", MM_OP_KIND_NBC,
     "as alltoallv (same size, buffers and i*(count+1) layout) through MPI_Ialltoallv + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(alltoallv), {0, 2, 0, 0}},
    {"ireduce", MM_OP_KIND_NBC,
     "as reduce (same size, buffers) through MPI_Ireduce + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT MM__C_REDUCE, MM_OP_REDUCES | MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(reduce), {1, 0, 1, 0}},
    {"iallreduce", MM_OP_KIND_NBC,
     "as allreduce (same size, buffers) through MPI_Iallreduce + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__NBC(allreduce), {2, 0, 0, 0}},
    {"ireduce_scatter", MM_OP_KIND_NBC,
     "as reduce_scatter (same size, buffers) through MPI_Ireduce_scatter + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__NBC(reduce_scatter), {1, 0, 0, 0}},
    {"ireduce_scatter_block", MM_OP_KIND_NBC,
     "as reduce_scatter_block (same size, buffers) through MPI_Ireduce_scatter_block + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE MM__C_NBLOCKS, MM_OP_REDUCES, MM__NBC(reduce_scatter_block), {1, 1, 0, 0}},
    {"iscan", MM_OP_KIND_NBC,
     "as scan (same size, buffers) through MPI_Iscan + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__NBC(scan), {2, 0, 0, 0}},
    {"iexscan", MM_OP_KIND_NBC,
     "as exscan (same size, buffers) through MPI_Iexscan + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__NBC(exscan), {2, 0, 0, 0}},
    {"delay", MM_OP_KIND_LOCAL,
     "no communication: every rank busy-waits size nanoseconds on the benchmark's timer",
     "size: a duration in ns (>= 0), not bytes; datatype and reduce op unused",
     MM_OP_SIZE_IS_DURATION, mm__setup_delay, mm__run_delay, mm__teardown_delay, {0, 0, 0, 0}},
};

const size_t mm_ops_count = sizeof mm_ops_table / sizeof mm_ops_table[0];

const char *mm_op_names(void) {
    static char names[4096]; /* filled once: the table is constant */
    if (names[0]) return names;
    size_t used = 0;
    for (size_t i = 0; i < mm_ops_count && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 mm_ops_table[i].name);
    return names;
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

int mm_op_inject_error(const mm_op *op, mm_op_args *args) {
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
    return -1;
}

const mm_op *mm_op_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < mm_ops_count; i++)
        if (strcmp(mm_ops_table[i].name, name) == 0) return &mm_ops_table[i];
    return NULL;
}

int mm_op_check_size(const mm_op *op, int64_t size, int type_size, char *why, size_t why_len) {
    if (!op) {
        snprintf(why, why_len, "no operation given");
        return -1;
    }
    if (op->flags & MM_OP_SIZE_UNUSED) return 0; /* one test at size 0, whatever was asked */
    if (op->flags & MM_OP_SIZE_IS_DURATION) {
        if (size >= 0) return 0;
        snprintf(why, why_len,
                 "size %" PRId64 " is negative; for %s the size is a duration in ns (>= 0)",
                 size, op->name);
        return -1;
    }
    if (size < 0) {
        snprintf(why, why_len, "size %" PRId64 " is negative; sizes are bytes (>= 0)", size);
        return -1;
    }
    if (type_size <= 0) {
        snprintf(why, why_len, "the datatype size %d is not positive", type_size);
        return -1;
    }
    if (size % type_size != 0) {
        int64_t below = size - size % type_size;
        snprintf(why, why_len,
                 "size %" PRId64 " is not a multiple of the datatype size (%d bytes); "
                 "nearest allowed: %" PRId64 " or %" PRId64,
                 size, type_size, below, below + type_size);
        return -1;
    }
    if (size / type_size > INT_MAX) {
        snprintf(why, why_len,
                 "size %" PRId64 " is too large: %" PRId64 " elements exceed MPI's count limit "
                 "(%d)",
                 size, size / type_size, INT_MAX);
        return -1;
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

void mm_ops_print_list(void *file) {
    FILE *f = file;
    for (size_t i = 0; i < mm_ops_count; i++) {
        const mm_op *op = &mm_ops_table[i];
        fprintf(f, "%-21s %s [%s]\n", op->name, op->pattern, op->constraints);
    }
}
