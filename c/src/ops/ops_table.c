/* ops_table.c — THE operation table: one row per operation (name, who sends what to whom, the
 * constraints on its size, flags, and its setup/run/teardown), plus lookup, the size check
 * and --list-ops.
 *
 * Why: the benchmark has one measurement loop; an operation is data. Adding an operation is
 * adding a row (MPICH lists its algorithms with their restrictions the same way); OSU and IMB
 * copy the loop per operation instead.
 * Size: for every row but barrier, the simple-* calls and delay, size is in bytes and is the
 * block one rank sends to one peer (for allreduce/bcast/reduce/scan/exscan the whole vector;
 * reduce_scatter: the whole vector, split as evenly as possible; reduce_scatter_block: each
 * rank's result block; a ping-pong: each of its two messages; master-worker: each worker's
 * message); count = size / datatype size elements. Each row's pattern says it in words.
 * Kinds: collectives (ops_coll.c), ping-pongs (ops_p2p.c: one timed call = one round trip, the
 * MM_OP_ROUND_TRIP flag tells the analysis to halve it), master-worker (ops_mw.c) and simple
 * calls (ops_simple.c), the synthetic delay (ops_delay.c), and the mock-ups of collectives
 * (ops_mockups.c: a composition of calls with the result of one collective, timed as one).
 * Buffers: each row ends with the blocks of `size` bytes its setup allocates per rank (every
 * rank, then the root's extra), for the memory check before a launch allocates anything.
 * Volume: then the data term of the op's performance bound (mm_op_volume in mm_ops.h).
 * Nonblocking collectives (kind "nonblocking") have the blocking twin's size, buffers and
 * constraints; their timed call is NBCBench's post + computation + wait (ops_nbc.c).
 * Cost: lookups are linear in the table (72 rows).
 * Paper: SKaMPI (Reussner et al. 1998, §2: operations as parameterized patterns; §2.1 and its
 * list of measurements for the ping-pongs, master-worker and simple patterns);
 * NBCBench (Hoefler, Schneider & Lumsdaine 2010, §4) for the nonblocking collectives;
 * Hunold & Carpen-Amarie 2016 §3.2 (one timed call per measurement). */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mm_config.h"
#include "mm_facts.h"
#include "mm_ops.h"
#include "ops_internal.h"
#include "ops_mockups.h"

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
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(allgather), {1, 1, 0, 0}, NULL, MM_VOL_PM1},
    {"allgatherv", MM_OP_KIND_COLLECTIVE,
     "as allgather (size bytes from each rank) through MPI_Allgatherv; block i lands at "
     "displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(allgatherv), {1, 1, 0, 0}, NULL, MM_VOL_PM1},
    {"allreduce", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes; every rank receives the elementwise "
     "reduction (size bytes)",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__COLL(allreduce), {2, 0, 0, 0}, NULL, MM_VOL_2PM1_OVER_P},
    {"alltoall", MM_OP_KIND_COLLECTIVE,
     "every rank sends a distinct block of size bytes to every rank (nprocs x size bytes out "
     "and in per rank)",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(alltoall), {0, 2, 0, 0}, NULL, MM_VOL_PM1},
    {"alltoallv", MM_OP_KIND_COLLECTIVE,
     "as alltoall (size bytes per pair of ranks) through MPI_Alltoallv; on both sides block i "
     "is at displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(alltoallv), {0, 2, 0, 0}, NULL, MM_VOL_PM1},
    {"barrier", MM_OP_KIND_COLLECTIVE, "no data: no rank leaves before every rank has entered",
     "size: unused (one test at size 0, whatever --sizes says)", MM_OP_SIZE_UNUSED,
     MM__COLL(barrier), {0, 0, 0, 0}, NULL, MM_VOL_ZERO},
    {"bcast", MM_OP_KIND_ROOTED, "root sends size bytes to every rank", MM__C_SIZE MM__C_ROOT, MM_OP_ROOTED | MM_OP_FINISH_APART,
     MM__COLL(bcast), {1, 0, 0, 0}, NULL, MM_VOL_SIZE},
    {"exscan", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes; rank r receives the elementwise reduction "
     "over ranks 0..r-1 (rank 0 receives nothing defined)",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__COLL(exscan), {2, 0, 0, 0}, NULL, MM_VOL_SIZE},
    {"gather", MM_OP_KIND_ROOTED, "every rank sends size bytes to root; root receives nprocs x size bytes",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(gather),
     {1, 0, 0, 1}, NULL, MM_VOL_PM1},
    {"gatherv", MM_OP_KIND_ROOTED,
     "as gather (size bytes from each rank) through MPI_Gatherv; at root block i lands at "
     "displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(gatherv),
     {1, 0, 0, 1}, NULL, MM_VOL_PM1},
    {"reduce", MM_OP_KIND_ROOTED,
     "every rank contributes a vector of size bytes; root receives the elementwise reduction "
     "(size bytes)",
     MM__C_SIZE MM__C_ROOT MM__C_REDUCE, MM_OP_REDUCES | MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(reduce),
     {1, 0, 1, 0}, NULL, MM_VOL_PM1_OVER_P},
    {"reduce_scatter", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes (count elements); the elementwise reduction "
     "is split: rank i receives count/nprocs elements, one more if i < count % nprocs",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__COLL(reduce_scatter), {1, 0, 0, 0}, NULL, MM_VOL_PM1_OVER_P},
    {"reduce_scatter_block", MM_OP_KIND_COLLECTIVE,
     "every rank contributes nprocs blocks of size bytes; they are reduced elementwise and "
     "rank i receives block i (size bytes)",
     MM__C_SIZE MM__C_REDUCE MM__C_NBLOCKS, MM_OP_REDUCES, MM__COLL(reduce_scatter_block),
     {1, 1, 0, 0}, NULL, MM_VOL_PM1},
    {"scan", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes; rank r receives the elementwise reduction "
     "over ranks 0..r",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__COLL(scan), {2, 0, 0, 0}, NULL, MM_VOL_SIZE},
    {"scatter", MM_OP_KIND_ROOTED,
     "root sends a distinct block of size bytes to every rank (nprocs x size bytes leave root)",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(scatter),
     {1, 0, 0, 1}, NULL, MM_VOL_PM1},
    {"scatterv", MM_OP_KIND_ROOTED,
     "as scatter (size bytes to each rank) through MPI_Scatterv; at root block i is at "
     "displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART,
     MM__COLL(scatterv), {1, 0, 0, 1}, NULL, MM_VOL_PM1},
    {"ibarrier", MM_OP_KIND_NBC,
     "no data: MPI_Ibarrier + computation + MPI_Wait",
     "size: unused (one test at size 0, whatever --sizes says)", MM_OP_SIZE_UNUSED, MM__NBC(barrier), {0, 0, 0, 0}, NULL, MM_VOL_NONE},
    {"ibcast", MM_OP_KIND_NBC,
     "as bcast (same size, buffers) through MPI_Ibcast + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT, MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(bcast), {1, 0, 0, 0}, NULL, MM_VOL_NONE},
    {"igather", MM_OP_KIND_NBC,
     "as gather (same size, buffers) through MPI_Igather + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(gather), {1, 0, 0, 1}, NULL, MM_VOL_NONE},
    {"igatherv", MM_OP_KIND_NBC,
     "as gatherv (same size, buffers and i*(count+1) layout) through MPI_Igatherv + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(gatherv), {1, 0, 0, 1}, NULL, MM_VOL_NONE},
    {"iscatter", MM_OP_KIND_NBC,
     "as scatter (same size, buffers) through MPI_Iscatter + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(scatter), {1, 0, 0, 1}, NULL, MM_VOL_NONE},
    {"iscatterv", MM_OP_KIND_NBC,
     "as scatterv (same size, buffers and i*(count+1) layout) through MPI_Iscatterv + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(scatterv), {1, 0, 0, 1}, NULL, MM_VOL_NONE},
    {"iallgather", MM_OP_KIND_NBC,
     "as allgather (same size, buffers) through MPI_Iallgather + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(allgather), {1, 1, 0, 0}, NULL, MM_VOL_NONE},
    {"iallgatherv", MM_OP_KIND_NBC,
     "as allgatherv (same size, buffers and i*(count+1) layout) through MPI_Iallgatherv + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(allgatherv), {1, 1, 0, 0}, NULL, MM_VOL_NONE},
    {"ialltoall", MM_OP_KIND_NBC,
     "as alltoall (same size, buffers) through MPI_Ialltoall + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(alltoall), {0, 2, 0, 0}, NULL, MM_VOL_NONE},
    {"ialltoallv", MM_OP_KIND_NBC,
     "as alltoallv (same size, buffers and i*(count+1) layout) through MPI_Ialltoallv + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(alltoallv), {0, 2, 0, 0}, NULL, MM_VOL_NONE},
    {"ireduce", MM_OP_KIND_NBC,
     "as reduce (same size, buffers) through MPI_Ireduce + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT MM__C_REDUCE, MM_OP_REDUCES | MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(reduce), {1, 0, 1, 0}, NULL, MM_VOL_NONE},
    {"iallreduce", MM_OP_KIND_NBC,
     "as allreduce (same size, buffers) through MPI_Iallreduce + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__NBC(allreduce), {2, 0, 0, 0}, NULL, MM_VOL_NONE},
    {"ireduce_scatter", MM_OP_KIND_NBC,
     "as reduce_scatter (same size, buffers) through MPI_Ireduce_scatter + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__NBC(reduce_scatter), {1, 0, 0, 0}, NULL, MM_VOL_NONE},
    {"ireduce_scatter_block", MM_OP_KIND_NBC,
     "as reduce_scatter_block (same size, buffers) through MPI_Ireduce_scatter_block + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE MM__C_NBLOCKS, MM_OP_REDUCES, MM__NBC(reduce_scatter_block), {1, 1, 0, 0}, NULL, MM_VOL_NONE},
    {"iscan", MM_OP_KIND_NBC,
     "as scan (same size, buffers) through MPI_Iscan + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__NBC(scan), {2, 0, 0, 0}, NULL, MM_VOL_NONE},
    {"iexscan", MM_OP_KIND_NBC,
     "as exscan (same size, buffers) through MPI_Iexscan + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__NBC(exscan), {2, 0, 0, 0}, NULL, MM_VOL_NONE},
    {"delay", MM_OP_KIND_LOCAL,
     "no communication: every rank busy-waits size nanoseconds on the benchmark's timer",
     "size: a duration in ns (>= 0), not bytes; datatype and reduce op unused",
     MM_OP_SIZE_IS_DURATION, mm__setup_delay, mm__run_delay, mm__teardown_delay, {0, 0, 0, 0}, NULL, MM_VOL_NONE},
    /* mock-ups of collectives, the guidelines' right-hand sides (ops_mockups.c) */
#include "ops_mockups_rows.h"

    /* ping-pongs (ops_p2p.c): one timed call = one round trip a -> b -> a; Bsend's attached
     * buffer counts as two more blocks */
#define MM__PP(name, how, setup, run, blocks)                                                    \
    {"pingpong-" name, MM_OP_KIND_P2P,                                                           \
     "one round trip of size bytes between the ranks a,b of --pair (a sends, b answers): " how   \
     "; the other ranks idle",                                                                   \
     MM__C_SIZE "; --pair A,B or the pair chosen by the launch; an even number of ranks",        \
     MM__PP_FLAGS, setup, run, mm__teardown_pingpong, {blocks, 0, 0, 0}, NULL, MM_VOL_SIZE}
#define MM__PP_FLAGS (MM_OP_PAIR | MM_OP_ROUND_TRIP | MM_OP_FINISH_APART)
    MM__PP("anytag", "MPI_Send, MPI_Recv with MPI_ANY_TAG", mm__setup_pingpong,
           mm__run_pingpong_anytag, 2),
    MM__PP("bsend-recv", "MPI_Bsend (buffer attached outside the timed region), MPI_Recv",
           mm__setup_pingpong_bsend, mm__run_pingpong_bsend_recv, 4),
    MM__PP("iprobe-recv", "MPI_Send; the receiver polls MPI_Iprobe, then MPI_Recv",
           mm__setup_pingpong, mm__run_pingpong_iprobe_recv, 2),
    MM__PP("isend-irecv", "MPI_Irecv posted first, MPI_Isend, MPI_Wait(all)", mm__setup_pingpong,
           mm__run_pingpong_isend_irecv, 2),
    MM__PP("isend-recv", "MPI_Isend + MPI_Wait, MPI_Recv", mm__setup_pingpong,
           mm__run_pingpong_isend_recv, 2),
    MM__PP("send-irecv", "MPI_Send, MPI_Irecv posted before + MPI_Wait", mm__setup_pingpong,
           mm__run_pingpong_send_irecv, 2),
    MM__PP("send-recv", "MPI_Send, MPI_Recv", mm__setup_pingpong, mm__run_pingpong_send_recv, 2),
    MM__PP("sendrecv", "a calls MPI_Sendrecv (ping out, pong in); b MPI_Recv, MPI_Send",
           mm__setup_pingpong, mm__run_pingpong_sendrecv, 2),
    MM__PP("sendrecv-replace",
           "a calls MPI_Sendrecv_replace on one buffer; b MPI_Recv, MPI_Send",
           mm__setup_pingpong, mm__run_pingpong_sendrecv_replace, 2),
    MM__PP("ssend-recv", "MPI_Ssend, MPI_Recv", mm__setup_pingpong, mm__run_pingpong_ssend_recv, 2),
#undef MM__PP
#undef MM__PP_FLAGS
    /* master-worker (ops_mw.c): master = --root, workers = every other rank; mw-bsend's master
     * holds the attached buffer too */
#define MM__MW(name, how, setup, run, after, master_blocks_x_nprocs)                            \
    {"mw-" name, MM_OP_KIND_MASTER_WORKER, how,                                                  \
     MM__C_SIZE MM__C_ROOT " (the master); at least 2 ranks; the master needs (nprocs-1) x "     \
     "size bytes",                                                                               \
     MM_OP_ROOTED | MM_OP_FINISH_APART | MM_OP_NEEDS_TWO, setup, run, mm__teardown_mw,          \
     {2, 0, 0, master_blocks_x_nprocs}, after, MM_VOL_NONE}
    MM__MW("bsend", "the master sends size bytes to every worker with MPI_Bsend (buffer "
           "attached outside the timed region, and detached and attached again after each call: the "
           "buffer is empty at every start); each worker MPI_Recv",
           mm__setup_mw_bsend, mm__run_mw_bsend, mm__after_mw_bsend, 2),
    MM__MW("isend", "the master sends size bytes to every worker with MPI_Isend, then "
           "MPI_Waitall; each worker MPI_Recv", mm__setup_mw, mm__run_mw_isend, NULL, 1),
    MM__MW("recv-any", "every worker sends size bytes to the master (MPI_Send), which receives "
           "them with MPI_Recv(MPI_ANY_SOURCE) in arrival order", mm__setup_mw, mm__run_mw_recv_any, NULL, 1),
    MM__MW("send", "the master sends size bytes to every worker with MPI_Send, one after the "
           "other; each worker MPI_Recv", mm__setup_mw, mm__run_mw_send, NULL, 1),
    MM__MW("ssend", "the master sends size bytes to every worker with MPI_Ssend, one after the "
           "other; each worker MPI_Recv", mm__setup_mw, mm__run_mw_ssend, NULL, 1),
    MM__MW("waitany", "every worker sends size bytes to the master (MPI_Send); the master posts "
           "one MPI_Irecv per worker and completes them with MPI_Waitany", mm__setup_mw,
           mm__run_mw_waitany, NULL, 1),
    MM__MW("waitsome", "every worker sends size bytes to the master (MPI_Send); the master posts "
           "one MPI_Irecv per worker and completes them with MPI_Waitsome", mm__setup_mw,
           mm__run_mw_waitsome, NULL, 1),
#undef MM__MW
    /* simple calls (ops_simple.c): every rank, no data */
#define MM__SIMPLE(name, what, run, after)                                                       \
    {"simple-" name, MM_OP_KIND_SIMPLE, what,                                                    \
     "size: unused (one test at size 0, whatever --sizes says)", MM_OP_SIZE_UNUSED,              \
     mm__setup_simple, run, mm__teardown_simple, {0, 0, 0, 0}, after, MM_VOL_NONE}
    MM__SIMPLE("comm-dup", "every rank calls MPI_Comm_dup (collective); the new communicator is "
               "freed after the end timestamp", mm__run_simple_comm_dup, mm__after_simple_free_comm),
    MM__SIMPLE("comm-rank", "every rank calls MPI_Comm_rank", mm__run_simple_comm_rank, NULL),
    MM__SIMPLE("comm-size", "every rank calls MPI_Comm_size", mm__run_simple_comm_size, NULL),
    MM__SIMPLE("comm-split", "every rank calls MPI_Comm_split, all in one color (collective); the "
               "new communicator is freed after the end timestamp", mm__run_simple_comm_split,
               mm__after_simple_free_comm),
    MM__SIMPLE("empty", "nothing: an empty timed region (the cost of measuring, SKaMPI §3.1)",
               mm__run_simple_empty, NULL),
    MM__SIMPLE("iprobe", "every rank calls MPI_Iprobe(MPI_ANY_SOURCE) for a tag nobody sends: "
               "unsuccessful", mm__run_simple_iprobe, NULL),
    MM__SIMPLE("wtime", "every rank calls MPI_Wtime", mm__run_simple_wtime, NULL),
#undef MM__SIMPLE
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

const char *mm_op_volume_formula(const mm_op *op) {
    switch (op ? op->volume : MM_VOL_NONE) {
    case MM_VOL_ZERO: return "0";
    case MM_VOL_SIZE: return "size";
    case MM_VOL_PM1_OVER_P: return "(p-1)/p x size";
    case MM_VOL_2PM1_OVER_P: return "2(p-1)/p x size";
    case MM_VOL_PM1: return "(p-1) x size";
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

int mm_op_check_nprocs(const mm_op *op, int nprocs, char *why, size_t why_len) {
    if (!op) return 0;
    /* The issue asks for even counts: a ping-pong launch pairs ranks, and an odd count leaves
     * one rank without a partner in patterns that pair every rank (SKaMPI §2.1). */
    if ((op->flags & MM_OP_PAIR) && (nprocs < 2 || nprocs % 2 != 0)) {
        snprintf(why, why_len, "%s needs an even number of ranks, at least 2 (got %d)", op->name,
                 nprocs);
        return -1;
    }
    if ((op->flags & MM_OP_NEEDS_TWO) && nprocs < 2) {
        snprintf(why, why_len, "%s needs at least 2 ranks: a master and a worker (got %d)",
                 op->name, nprocs);
        return -1;
    }
    return 0;
}

void mm_ops_print_list(void *file) {
    FILE *f = file;
    for (size_t i = 0; i < mm_ops_count; i++) {
        const mm_op *op = &mm_ops_table[i];
        fprintf(f, "%-21s %s [%s]\n", op->name, op->pattern, op->constraints);
    }
}

int mm_op_facts_of_config(const mm_config *c, int nprocs, mm_op_facts *out, int max) {
    int n = 0;
    for (int i = 0; i < c->nops && i < MM_MAX_OPS && n < max; i++) {
        const mm_op *op = mm_op_find(c->ops[i]);
        if (!op) continue;
        mm_op_facts *f = &out[n++];
        f->name = op->name;
        f->kind = op->kind;
        f->finish_apart = (op->flags & MM_OP_FINISH_APART) != 0;
        f->size_unit = mm_op_size_unit(op);
        f->round_trip = (op->flags & MM_OP_ROUND_TRIP) != 0;
        f->volume_formula = mm_op_volume_formula(op);
        f->bytes_per_size = f->volume_formula ? mm_op_volume_factor(op, nprocs) : 0.0;
        f->mockup_of = mm_mockup_of(op) ? mm_mockup_of(op)->of : NULL;
    }
    return n;
}
