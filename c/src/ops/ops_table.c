/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_table.c — THE operation table: one row per operation (name, who sends what to whom, the
 * constraints on its size, flags, and its setup/run/teardown). What is asked of the table
 * (lookup, the size, rank-count and --rma-sync checks, buffers, volume, the facts for meta.json)
 * is in ops_table_queries.c: the rows are data, the queries code that reads any row.
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
 * MM_OP_ROUND_TRIP flag tells the analysis to halve it), master-worker (ops_mw.c; with work
 * pieces, ops_mw_workpieces.c) and simple
 * calls (ops_simple.c), the synthetic delay (ops_delay.c), and the mock-ups of collectives
 * (ops_mockups.c: a composition of calls with the result of one collective, timed as one).
 * Buffers: each row ends with the blocks of `size` bytes its setup allocates per rank (every
 * rank, then the root's extra), for the memory check before a launch allocates anything.
 * Volume: then the data term of the op's performance bound (mm_op_volume in mm_ops.h).
 * Nonblocking collectives (kind "nonblocking") have the blocking twin's size, buffers and
 * constraints; their timed call is NBCBench's post + computation + wait (ops_nbc.c).
 * One-sided rows (kind "one-sided", ops_rma.c): data movement between the ranks of the pair in
 * an epoch of --rma-sync, checked after the test (ops_rma_check.c); window create and free.
 * Persistent rows (kind "persistent", ops_persistent.c, MPI-4): MPI_Start + MPI_Wait on a
 * request made before the test, and the init alone; listed as unavailable where the library
 * lacks them (mm_op_available).
 * Neighborhood collectives (ops_neighbor.c) on the Cartesian topology of --cart-dims or the
 * distributed graph of --graph-file (ops_graph.c).
 * Mock-ups of collectives (ops_mockups.c): the guidelines' right-hand sides.
 * Paper: SKaMPI (Reussner et al. 1998, §2: operations as parameterized patterns; §2.1 and its
 * list of measurements for the ping-pongs, master-worker and simple patterns);
 * NBCBench (Hoefler, Schneider & Lumsdaine 2010, §4) for the nonblocking collectives;
 * Hunold & Carpen-Amarie 2016 §3.2 (one timed call per measurement). */
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
#define MM__B(a, b, c, d) {a, b, c, d} /* buffers, as one macro argument */

const mm_op mm_ops_table[] = {
    {"allgather", MM_OP_KIND_COLLECTIVE,
     "every rank sends its block of size bytes to every rank; each receives nprocs x size bytes",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(allgather), {1, 1, 0, 0}, NULL, MM_VOL_PM1, NULL},
    {"allgatherv", MM_OP_KIND_COLLECTIVE,
     "as allgather (size bytes from each rank) through MPI_Allgatherv; block i lands at "
     "displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(allgatherv), {1, 1, 0, 0}, NULL, MM_VOL_PM1, NULL},
    {"allreduce", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes; every rank receives the elementwise "
     "reduction (size bytes)",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__COLL(allreduce), {2, 0, 0, 0}, NULL, MM_VOL_2PM1_OVER_P, NULL},
    {"alltoall", MM_OP_KIND_COLLECTIVE,
     "every rank sends a distinct block of size bytes to every rank (nprocs x size bytes out "
     "and in per rank)",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(alltoall), {0, 2, 0, 0}, NULL, MM_VOL_PM1, NULL},
    {"alltoallv", MM_OP_KIND_COLLECTIVE,
     "as alltoall (size bytes per pair of ranks) through MPI_Alltoallv; on both sides block i "
     "is at displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__COLL(alltoallv), {0, 2, 0, 0}, NULL, MM_VOL_PM1, NULL},
    {"barrier", MM_OP_KIND_COLLECTIVE, "no data: no rank leaves before every rank has entered",
     "size: unused (one test at size 0, whatever --sizes says)", MM_OP_SIZE_UNUSED,
     MM__COLL(barrier), {0, 0, 0, 0}, NULL, MM_VOL_ZERO, NULL},
    {"bcast", MM_OP_KIND_ROOTED, "root sends size bytes to every rank", MM__C_SIZE MM__C_ROOT, MM_OP_ROOTED | MM_OP_FINISH_APART,
     MM__COLL(bcast), {1, 0, 0, 0}, NULL, MM_VOL_SIZE, NULL},
    {"exscan", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes; rank r receives the elementwise reduction "
     "over ranks 0..r-1 (rank 0 receives nothing defined)",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__COLL(exscan), {2, 0, 0, 0}, NULL, MM_VOL_SIZE, NULL},
    {"gather", MM_OP_KIND_ROOTED, "every rank sends size bytes to root; root receives nprocs x size bytes",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(gather),
     {1, 0, 0, 1}, NULL, MM_VOL_PM1, NULL},
    {"gatherv", MM_OP_KIND_ROOTED,
     "as gather (size bytes from each rank) through MPI_Gatherv; at root block i lands at "
     "displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(gatherv),
     {1, 0, 0, 1}, NULL, MM_VOL_PM1, NULL},
    {"reduce", MM_OP_KIND_ROOTED,
     "every rank contributes a vector of size bytes; root receives the elementwise reduction "
     "(size bytes)",
     MM__C_SIZE MM__C_ROOT MM__C_REDUCE, MM_OP_REDUCES | MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(reduce),
     {1, 0, 1, 0}, NULL, MM_VOL_PM1_OVER_P, NULL},
    {"reduce_scatter", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes (count elements); the elementwise reduction "
     "is split: rank i receives count/nprocs elements, one more if i < count % nprocs",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__COLL(reduce_scatter), {1, 0, 0, 0}, NULL, MM_VOL_PM1_OVER_P, NULL},
    {"reduce_scatter_block", MM_OP_KIND_COLLECTIVE,
     "every rank contributes nprocs blocks of size bytes; they are reduced elementwise and "
     "rank i receives block i (size bytes)",
     MM__C_SIZE MM__C_REDUCE MM__C_NBLOCKS, MM_OP_REDUCES, MM__COLL(reduce_scatter_block),
     {1, 1, 0, 0}, NULL, MM_VOL_PM1, NULL},
    {"scan", MM_OP_KIND_COLLECTIVE,
     "every rank contributes a vector of size bytes; rank r receives the elementwise reduction "
     "over ranks 0..r",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__COLL(scan), {2, 0, 0, 0}, NULL, MM_VOL_SIZE, NULL},
    {"scatter", MM_OP_KIND_ROOTED,
     "root sends a distinct block of size bytes to every rank (nprocs x size bytes leave root)",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__COLL(scatter),
     {1, 0, 0, 1}, NULL, MM_VOL_PM1, NULL},
    {"scatterv", MM_OP_KIND_ROOTED,
     "as scatter (size bytes to each rank) through MPI_Scatterv; at root block i is at "
     "displacement i*(count+1) elements: a one-element gap after each block",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART,
     MM__COLL(scatterv), {1, 0, 0, 1}, NULL, MM_VOL_PM1, NULL},
    {"ibarrier", MM_OP_KIND_NBC,
     "no data: MPI_Ibarrier + computation + MPI_Wait",
     "size: unused (one test at size 0, whatever --sizes says)", MM_OP_SIZE_UNUSED, MM__NBC(barrier), {0, 0, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"ibcast", MM_OP_KIND_NBC,
     "as bcast (same size, buffers) through MPI_Ibcast + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT, MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(bcast), {1, 0, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"igather", MM_OP_KIND_NBC,
     "as gather (same size, buffers) through MPI_Igather + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(gather), {1, 0, 0, 1}, NULL, MM_VOL_NONE, NULL},
    {"igatherv", MM_OP_KIND_NBC,
     "as gatherv (same size, buffers and i*(count+1) layout) through MPI_Igatherv + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(gatherv), {1, 0, 0, 1}, NULL, MM_VOL_NONE, NULL},
    {"iscatter", MM_OP_KIND_NBC,
     "as scatter (same size, buffers) through MPI_Iscatter + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(scatter), {1, 0, 0, 1}, NULL, MM_VOL_NONE, NULL},
    {"iscatterv", MM_OP_KIND_NBC,
     "as scatterv (same size, buffers and i*(count+1) layout) through MPI_Iscatterv + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT "; root needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(scatterv), {1, 0, 0, 1}, NULL, MM_VOL_NONE, NULL},
    {"iallgather", MM_OP_KIND_NBC,
     "as allgather (same size, buffers) through MPI_Iallgather + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(allgather), {1, 1, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"iallgatherv", MM_OP_KIND_NBC,
     "as allgatherv (same size, buffers and i*(count+1) layout) through MPI_Iallgatherv + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(allgatherv), {1, 1, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"ialltoall", MM_OP_KIND_NBC,
     "as alltoall (same size, buffers) through MPI_Ialltoall + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(alltoall), {0, 2, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"ialltoallv", MM_OP_KIND_NBC,
     "as alltoallv (same size, buffers and i*(count+1) layout) through MPI_Ialltoallv + computation + MPI_Wait",
     MM__C_SIZE MM__C_NBLOCKS, 0, MM__NBC(alltoallv), {0, 2, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"ireduce", MM_OP_KIND_NBC,
     "as reduce (same size, buffers) through MPI_Ireduce + computation + MPI_Wait",
     MM__C_SIZE MM__C_ROOT MM__C_REDUCE, MM_OP_REDUCES | MM_OP_ROOTED | MM_OP_FINISH_APART, MM__NBC(reduce), {1, 0, 1, 0}, NULL, MM_VOL_NONE, NULL},
    {"iallreduce", MM_OP_KIND_NBC,
     "as allreduce (same size, buffers) through MPI_Iallreduce + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__NBC(allreduce), {2, 0, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"ireduce_scatter", MM_OP_KIND_NBC,
     "as reduce_scatter (same size, buffers) through MPI_Ireduce_scatter + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__NBC(reduce_scatter), {1, 0, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"ireduce_scatter_block", MM_OP_KIND_NBC,
     "as reduce_scatter_block (same size, buffers) through MPI_Ireduce_scatter_block + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE MM__C_NBLOCKS, MM_OP_REDUCES, MM__NBC(reduce_scatter_block), {1, 1, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"iscan", MM_OP_KIND_NBC,
     "as scan (same size, buffers) through MPI_Iscan + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__NBC(scan), {2, 0, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"iexscan", MM_OP_KIND_NBC,
     "as exscan (same size, buffers) through MPI_Iexscan + computation + MPI_Wait",
     MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, MM__NBC(exscan), {2, 0, 0, 0}, NULL, MM_VOL_NONE, NULL},
    {"delay", MM_OP_KIND_LOCAL,
     "no communication: every rank busy-waits size nanoseconds on the benchmark's timer",
     "size: a duration in ns (>= 0), not bytes; datatype and reduce op unused",
     MM_OP_SIZE_IS_DURATION, mm__setup_delay, mm__run_delay, mm__teardown_delay, {0, 0, 0, 0}, NULL, MM_VOL_NONE, NULL},
    /* mock-ups of collectives, the guidelines' right-hand sides (ops_mockups.c) */
#include "ops_mockups_rows.h"

    /* ping-pongs (ops_p2p.c): one timed call = one round trip a -> b -> a; Bsend's attached
     * buffer counts as two more blocks */
#define MM__PP(name, how, setup, run, blocks)                                                    \
    {"pingpong-" name, MM_OP_KIND_P2P,                                                           \
     "one round trip of size bytes between the ranks a,b of --pair (a sends, b answers): " how   \
     "; the other ranks idle",                                                                   \
     MM__C_SIZE "; --pair A,B or the pair chosen by the launch; an even number of ranks",        \
     MM__PP_FLAGS, setup, run, mm__teardown_pingpong, {blocks, 0, 0, 0}, NULL, MM_VOL_SIZE, NULL}
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
     {2, 0, 0, master_blocks_x_nprocs}, after, MM_VOL_NONE, NULL}
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
    {"mw-workpieces", MM_OP_KIND_MASTER_WORKER,
     "the master hands out --workpieces pieces of size bytes: one to each worker, then the next "
     "to each worker whose result (size bytes) MPI_Waitsome completed, until every piece is "
     "back; then a stop message (0 bytes) to each worker. Each worker MPI_Recv a piece and "
     "MPI_Send its result until the stop (SKaMPI: MPI_Waitsome varied over the number of "
     "workpieces)",
     MM__C_SIZE MM__C_ROOT " (the master); --workpieces LIST (one test per value); at least 2 "
     "ranks; the master needs (nprocs-1) x size bytes",
     MM_OP_ROOTED | MM_OP_FINISH_APART | MM_OP_NEEDS_TWO | MM_OP_WORKPIECES, mm__setup_mw_workpieces,
     mm__run_mw_workpieces, mm__teardown_mw, {2, 0, 0, 1}, NULL, MM_VOL_NONE, NULL},
    /* neighborhood collectives (ops_neighbor.c): a periodic Cartesian topology of --cart-dims
     * (default: MPI_Dims_create's 2-D grid), or the graph of --graph-file; buffers counted for 2
     * dimensions (4 neighbours); the received blocks checked after the test */
#define MM__C_CART MM__C_SIZE "; --cart-dims D1,D2,... whose product is the number of ranks, or auto; " \
    "or --graph-file FILE, a graph of as many ranks"
    {"neighbor_allgather", MM_OP_KIND_COLLECTIVE,
     "with MPI_Neighbor_allgather every rank sends its block of size bytes to each of its "
     "out-neighbours and receives one block from each in-neighbour (Cartesian topology: 2 x "
     "ndims of each; --graph-file: the file's)",
     MM__C_CART, 0, mm__setup_neighbor_allgather, mm__run_neighbor_allgather, mm__teardown_neighbor,
     {5, 0, 0, 0}, NULL, MM_VOL_NEIGHBORS, mm__verify_neighbor},
    {"neighbor_alltoall", MM_OP_KIND_COLLECTIVE,
     "with MPI_Neighbor_alltoall every rank sends a distinct block of size bytes to each of its "
     "out-neighbours and receives one block from each in-neighbour (Cartesian topology: 2 x "
     "ndims of each; --graph-file: the file's)",
     MM__C_CART, 0, mm__setup_neighbor_alltoall, mm__run_neighbor_alltoall, mm__teardown_neighbor,
     {8, 0, 0, 0}, NULL, MM_VOL_NEIGHBORS, mm__verify_neighbor},
    {"neighbor_alltoallv", MM_OP_KIND_COLLECTIVE,
     "as neighbor_alltoall (size bytes per neighbour) through MPI_Neighbor_alltoallv; on both "
     "sides block i is at displacement i*(count+1) elements",
     MM__C_CART, 0, mm__setup_neighbor_alltoallv, mm__run_neighbor_alltoallv, mm__teardown_neighbor,
     {8, 0, 0, 0}, NULL, MM_VOL_NEIGHBORS, mm__verify_neighbor},
    {"ineighbor_allgather", MM_OP_KIND_NBC,
     "as neighbor_allgather (same size, buffers) through MPI_Ineighbor_allgather + computation + MPI_Wait",
     MM__C_CART, 0, mm__setup_ineighbor_allgather, mm__run_nbc, mm__teardown_neighbor,
     {5, 0, 0, 0}, NULL, MM_VOL_NONE, mm__verify_neighbor},
    {"ineighbor_alltoall", MM_OP_KIND_NBC,
     "as neighbor_alltoall (same size, buffers) through MPI_Ineighbor_alltoall + computation + MPI_Wait",
     MM__C_CART, 0, mm__setup_ineighbor_alltoall, mm__run_nbc, mm__teardown_neighbor,
     {8, 0, 0, 0}, NULL, MM_VOL_NONE, mm__verify_neighbor},
    {"ineighbor_alltoallv", MM_OP_KIND_NBC,
     "as neighbor_alltoallv (same size, buffers and i*(count+1) layout) through "
     "MPI_Ineighbor_alltoallv + computation + MPI_Wait",
     MM__C_CART, 0, mm__setup_ineighbor_alltoallv, mm__run_nbc, mm__teardown_neighbor,
     {8, 0, 0, 0}, NULL, MM_VOL_NONE, mm__verify_neighbor},
#undef MM__C_CART
    /* persistent collectives (ops_persistent.c, MPI-4): the blocking twin's size, buffers and
     * constraints; a request made by MPI_<Op>_init before the test, each timed call MPI_Start +
     * MPI_Wait; the -init rows time MPI_<Op>_init alone (freed after the end timestamp) */
#define MM__PERSISTENT(op, call, constraints, flags, blocks, volume)                            \
    {"persistent-" #op, MM_OP_KIND_PERSISTENT,                                                  \
     "as " #op " (same size, buffers) through a request of " call " made before the test: "      \
     "MPI_Start + MPI_Wait", constraints, flags, mm__setup_persistent_##op, mm__run_persistent,   \
     mm__teardown_persistent, blocks, NULL, volume, NULL},                                       \
    {"persistent-" #op "-init", MM_OP_KIND_PERSISTENT,                                          \
     call " alone, with " #op "'s arguments (same size, buffers); the request is freed after the " \
     "end timestamp", constraints, flags, mm__setup_persistent_##op##_init,                      \
     mm__run_persistent_init, mm__teardown_persistent, blocks, mm__after_persistent_init,        \
     MM_VOL_NONE, NULL}
    MM__PERSISTENT(allgather, "MPI_Allgather_init", MM__C_SIZE MM__C_NBLOCKS, 0, MM__B(1, 1, 0, 0), MM_VOL_PM1),
    MM__PERSISTENT(allreduce, "MPI_Allreduce_init", MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, MM__B(2, 0, 0, 0),
                   MM_VOL_2PM1_OVER_P),
    MM__PERSISTENT(alltoall, "MPI_Alltoall_init", MM__C_SIZE MM__C_NBLOCKS, 0, MM__B(0, 2, 0, 0), MM_VOL_PM1),
    MM__PERSISTENT(barrier, "MPI_Barrier_init", "size: unused (one test at size 0, whatever --sizes says)",
                   MM_OP_SIZE_UNUSED, MM__B(0, 0, 0, 0), MM_VOL_ZERO),
    MM__PERSISTENT(bcast, "MPI_Bcast_init", MM__C_SIZE MM__C_ROOT, MM_OP_ROOTED | MM_OP_FINISH_APART,
                   MM__B(1, 0, 0, 0), MM_VOL_SIZE),
    MM__PERSISTENT(reduce, "MPI_Reduce_init", MM__C_SIZE MM__C_ROOT MM__C_REDUCE,
                   MM_OP_REDUCES | MM_OP_ROOTED | MM_OP_FINISH_APART, MM__B(1, 0, 1, 0), MM_VOL_PM1_OVER_P),
#undef MM__PERSISTENT
    /* one-sided (ops_rma.c): the window on the pair (origin a = pair[0], target b = pair[1]),
     * the epoch of --rma-sync inside the timed call, the memory checked after the test */
#define MM__C_RMA                                                                                \
    "; --rma-sync MODE (required); --rma-window KIND; --pair A,B or the pair chosen by the "    \
    "launch; an even number of ranks"
#define MM__RMA(name, how, constraints, flags, setup, blocks, volume)                            \
    {"rma-" name, MM_OP_KIND_RMA,                                                                \
     how "; the epoch of --rma-sync around it in the timed call (fence: fence, op, fence; pscw: "  \
     "start, op, complete / post, wait; lock, lock-shared: lock, op, unlock; lock-all-flush(-"   \
     "local): op, flush(_local), the epoch opened once); the other ranks idle",                 \
     constraints MM__C_RMA, MM_OP_PAIR | MM_OP_FINISH_APART | (flags), setup, mm__run_rma,        \
     mm__teardown_rma, {blocks, 0, 0, 0}, mm__after_rma, volume, mm__verify_rma}
    MM__RMA("acc", "a adds size bytes to b's window with MPI_Accumulate (--reduce-op)",
            MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, mm__setup_rma_acc, 2, MM_VOL_SIZE),
    MM__RMA("cas", "a swaps one element of --datatype in b's window with MPI_Compare_and_swap",
            "size: unused (one element of --datatype; one test at size 0); --datatype byte, int or long",
            MM_OP_SIZE_UNUSED, mm__setup_rma_cas, 0, MM_VOL_NONE),
    MM__RMA("fop", "a updates one element of --datatype in b's window with MPI_Fetch_and_op "
            "(--reduce-op) and fetches its former value",
            "size: unused (one element of --datatype; one test at size 0)" MM__C_REDUCE,
            MM_OP_SIZE_UNUSED | MM_OP_REDUCES, mm__setup_rma_fop, 0, MM_VOL_NONE),
    MM__RMA("get", "a reads size bytes of b's window with MPI_Get", MM__C_SIZE, 0,
            mm__setup_rma_get, 2, MM_VOL_SIZE),
    MM__RMA("get-acc", "a adds size bytes to b's window with MPI_Get_accumulate (--reduce-op) "
            "and fetches the former values", MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES,
            mm__setup_rma_get_acc, 3, MM_VOL_SIZE),
    MM__RMA("get-bw", "a reads --rma-burst blocks of size bytes of b's window with MPI_Get, back "
            "to back in one epoch (OSU's -w)", MM__C_SIZE "; windows of rma-burst x size bytes",
            0, mm__setup_rma_get_bw, 2, MM_VOL_RMA_BURST),
    MM__RMA("put", "a writes size bytes into b's window with MPI_Put", MM__C_SIZE, 0,
            mm__setup_rma_put, 2, MM_VOL_SIZE),
    MM__RMA("put-bw", "a writes --rma-burst blocks of size bytes into b's window with MPI_Put, "
            "back to back in one epoch (OSU's -w)", MM__C_SIZE "; windows of rma-burst x size bytes",
            0, mm__setup_rma_put_bw, 2, MM_VOL_RMA_BURST),
    MM__RMA("rget", "a reads size bytes of b's window with MPI_Rget + MPI_Wait",
            MM__C_SIZE "; passive modes only (lock, lock-shared, lock-all-flush, lock-all-flush-local)",
            0, mm__setup_rma_rget, 2, MM_VOL_SIZE),
    MM__RMA("rput", "a writes size bytes into b's window with MPI_Rput + MPI_Wait",
            MM__C_SIZE "; passive modes only (lock, lock-shared, lock-all-flush, lock-all-flush-local)",
            0, mm__setup_rma_rput, 2, MM_VOL_SIZE),
#undef MM__RMA
#include "ops_rma_contention_rows.h"
    /* window creation and free (ops_rma.c): every rank, a window of size bytes of --rma-window */
    {"rma-win-create", MM_OP_KIND_RMA,
     "every rank makes a window of size bytes of --rma-window (MPI_Win_create over memory "
     "allocated before, MPI_Win_allocate, MPI_Win_allocate_shared, or MPI_Win_create_dynamic + "
     "MPI_Win_attach); it is freed after the end timestamp",
     "size: bytes (0 allowed); --rma-window KIND", MM_OP_SIZE_IS_MEMORY, mm__setup_rma_win_create,
     mm__run_rma_win_create, mm__teardown_rma_win, {1, 0, 0, 0}, mm__after_rma_win_create,
     MM_VOL_NONE, NULL},
    {"rma-win-free", MM_OP_KIND_RMA,
     "every rank frees a window of size bytes of --rma-window (MPI_Win_free; dynamic: "
     "MPI_Win_detach + MPI_Win_free); the next is made after the end timestamp",
     "size: bytes (0 allowed); --rma-window KIND", MM_OP_SIZE_IS_MEMORY, mm__setup_rma_win_free,
     mm__run_rma_win_free, mm__teardown_rma_win, {1, 0, 0, 0}, mm__after_rma_win_free,
     MM_VOL_NONE, NULL},
    /* simple calls (ops_simple.c): every rank, no data */
#define MM__SIMPLE(name, what, run, after)                                                       \
    {"simple-" name, MM_OP_KIND_SIMPLE, what,                                                    \
     "size: unused (one test at size 0, whatever --sizes says)", MM_OP_SIZE_UNUSED,              \
     mm__setup_simple, run, mm__teardown_simple, {0, 0, 0, 0}, after, MM_VOL_NONE, NULL}
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
    {"simple-attach", MM_OP_KIND_SIMPLE,
     "every rank attaches a buffer of size bytes for buffered sends (MPI_Buffer_attach) and "
     "detaches it (MPI_Buffer_detach): both calls timed, as SKaMPI's attach measurement",
     "size: bytes of the buffer, from MPI_BSEND_OVERHEAD to 2147483647", MM_OP_SIZE_IS_MEMORY,
     mm__setup_simple_attach,
     mm__run_simple_attach, mm__teardown_simple, {1, 0, 0, 0}, NULL, MM_VOL_NONE, NULL},
};

const size_t mm_ops_count = sizeof mm_ops_table / sizeof mm_ops_table[0];
