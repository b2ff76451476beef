/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_internal.h — names shared between the ops files (and test_ops.c), not part of the public
 * interface: the setup/run/teardown functions the table points to, and datatype kinds. */
#ifndef MM_OPS_INTERNAL_H
#define MM_OPS_INTERNAL_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mm_error.h"
#include "mm_mpi.h"
#include "mm_ops.h"

/* What a datatype's elements are, for filling buffers and for which reductions MPI defines
 * on it (MPI-3.1 §5.9.2). */
typedef enum {
    MM__KIND_UNKNOWN = 0,
    MM__KIND_BYTE,    /* MPI_BYTE: bitwise reductions only */
    MM__KIND_CHAR,    /* MPI_CHAR: printable characters, no reductions */
    MM__KIND_INTEGER, /* C integers: every reduction */
    MM__KIND_FLOAT,   /* floating point: no bitwise reductions */
} mm__datatype_kind;

mm__datatype_kind mm__datatype_kind_of(MPI_Datatype dt);

/* The start of every setup: no buffers, no counts, no state, count 0, no message, so that a
 * failing setup leaves nothing for the teardown to free by mistake. */
static inline void mm__args_clear(mm_op_args *a) {
    a->sendbuf = a->recvbuf = NULL;
    a->sendcounts = a->sdispls = a->recvcounts = a->rdispls = NULL;
    a->state = NULL;
    a->count = 0;
    a->error[0] = '\0';
}

/* A setup's failure: its message into args->error (mm_error_set); MM_E_FAILED. */
#define mm__setup_failed(a, ...) mm_error_set((a)->error, sizeof (a)->error, __VA_ARGS__)

/* A setup's allocation of `bytes` for `what` that failed; MM_E_FAILED. */
static inline mm_status mm__setup_no_memory(mm_op_args *a, const char *what, int64_t bytes) {
    return mm__setup_failed(a, "cannot allocate %s (%lld bytes): out of memory", what, (long long)bytes);
}

/* A setup's MPI call: its return code; on failure the call and the library's error string in
 * args->error (as MM_MPI keeps them for a timed call). */
static inline int mm__setup_mpi_check(mm_op_args *a, int rc, const char *call_text) {
    if (rc == MPI_SUCCESS) return rc;
    mm_mpi_error e;
    mm_mpi_error_clear(&e);
    mm_mpi_check(&e, rc, call_text);
    mm_mpi_error_format(&e, a->error, sizeof a->error);
    return rc;
}
#define MM__SETUP_MPI(a, call) mm__setup_mpi_check((a), (call), #call)

/* The check after a test (an op's verify): one of its MPI calls failed with rc; the library's
 * words into why. MM_E_MPI, so that the launch labels the test mpi-error, not wrong data. */
static inline mm_status mm__verify_mpi_failed(int rc, char *why, size_t why_len) {
    mm_mpi_error e; /* the library's words for rc */
    mm_mpi_error_clear(&e);
    mm_mpi_check(&e, rc, "MPI");
    snprintf(why, why_len, "the check after the test: %s", e.text);
    return MM_E_MPI;
}

/* Message buffers start on a page boundary, as OSU's do: where a buffer starts inside its page
 * changes what a large shared-memory copy costs (Open MPI, 64 KiB ping-pong, back to back:
 * ~6 % on this project's machine; docs/ALGORITHMS.md, "Buffers on a page"), and malloc's
 * offset depends on whatever was allocated before. At least one byte; freed with free().
 * NULL when out of memory. */
static inline void *mm__buffer_alloc(size_t bytes) {
    void *p = NULL;
    long page = sysconf(_SC_PAGESIZE);
    if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, bytes > 0 ? bytes : 1) != 0) return NULL;
    return p;
}

/* mm__buffer_alloc of n elements of `size` bytes, zeroed; NULL on overflow or out of memory. */
static inline void *mm__buffer_calloc(size_t n, size_t size) {
    if (size > 0 && n > SIZE_MAX / size) return NULL;
    void *p = mm__buffer_alloc(n * size);
    if (p) memset(p, 0, n * size > 0 ? n * size : 1);
    return p;
}

/* What a row's size is to mm__args_check: unused, a count of --datatype elements in bytes, or
 * bytes of memory (a window, a buffer to attach: MM_OP_SIZE_IS_MEMORY, any whole number). */
enum { MM__SIZE_UNUSED = 0, MM__SIZE_ELEMENTS = 1, MM__SIZE_MEMORY = 2 };

/* The arguments every setup checks before it allocates or calls MPI: a rank and a root among
 * the ranks and, when the row uses the size, a size that is a whole number of elements (of
 * bytes, for memory). 0, or MM_E_FAILED saying which does not hold (the option checks refuse
 * such values before a launch: this guards a caller that skipped them). */
static inline mm_status mm__args_check(mm_op_args *a, int uses_size) {
    if (a->nprocs < 1 || a->rank < 0 || a->rank >= a->nprocs)
        return mm__setup_failed(a, "rank %d is not one of the %d ranks", a->rank, a->nprocs);
    if (a->root < 0 || a->root >= a->nprocs)
        return mm__setup_failed(a, "root %d is not one of the %d ranks", a->root, a->nprocs);
    if (uses_size == MM__SIZE_MEMORY && a->size < 0)
        return mm__setup_failed(a, "size %lld is negative", (long long)a->size);
    if (uses_size == MM__SIZE_ELEMENTS && (a->type_size <= 0 || a->size < 0 || a->size % a->type_size != 0))
        return mm__setup_failed(a, "size %lld is not a whole number of %d-byte elements",
                                (long long)a->size, a->type_size);
    return 0;
}

/* A row's setup and run (the collectives here, the mock-ups in ops_mockups.h). */
#define MM__ROW_DECL(op)                           \
    mm_status mm__setup_##op(mm_op_args *args);    \
    int mm__run_##op(const mm_op_args *args);

/* Collectives (ops_coll.c). */
MM__ROW_DECL(allgather)
MM__ROW_DECL(allgatherv)
MM__ROW_DECL(allreduce)
MM__ROW_DECL(alltoall)
MM__ROW_DECL(alltoallv)
MM__ROW_DECL(barrier)
MM__ROW_DECL(bcast)
MM__ROW_DECL(exscan)
MM__ROW_DECL(gather)
MM__ROW_DECL(gatherv)
MM__ROW_DECL(reduce)
MM__ROW_DECL(reduce_scatter)
MM__ROW_DECL(reduce_scatter_block)
MM__ROW_DECL(scan)
MM__ROW_DECL(scatter)
MM__ROW_DECL(scatterv)
/* Frees whatever a collective's setup allocated; safe on a partly set-up or zeroed args. */
void mm__coll_teardown(mm_op_args *args);

/* Nonblocking collectives (ops_nbc.c): setup = the blocking twin's + the I-call; one run and
 * one teardown for all. */
#define MM__NBC_DECL(op) mm_status mm__setup_i##op(mm_op_args *args);
MM__NBC_DECL(allgather)
MM__NBC_DECL(allgatherv)
MM__NBC_DECL(allreduce)
MM__NBC_DECL(alltoall)
MM__NBC_DECL(alltoallv)
MM__NBC_DECL(barrier)
MM__NBC_DECL(bcast)
MM__NBC_DECL(exscan)
MM__NBC_DECL(gather)
MM__NBC_DECL(gatherv)
MM__NBC_DECL(reduce)
MM__NBC_DECL(reduce_scatter)
MM__NBC_DECL(reduce_scatter_block)
MM__NBC_DECL(scan)
MM__NBC_DECL(scatter)
MM__NBC_DECL(scatterv)
#undef MM__NBC_DECL
int mm__run_nbc(const mm_op_args *args);
void mm__nbc_teardown(mm_op_args *args);

/* The synthetic delay (ops_delay.c). */
mm_status mm__setup_delay(mm_op_args *args);
int mm__run_delay(const mm_op_args *args);
void mm__teardown_delay(mm_op_args *args);

/* MPI_Send, MPI_Ssend and MPI_Bsend share this signature: the ping-pong and master-worker rows
 * that differ only in the send mode pass it to one static inline body as a constant, so the
 * compiler makes one direct call per row (no indirect call in the timed region). */
typedef int (*mm__send_fn)(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);

/* The Bsend rows' buffer (ops_bsend.c): room for `messages` messages of args' count and
 * datatype, allocated and attached (0, or MM_E_FAILED with args' message and *buf NULL or
 * attached nothing usable); and its detach, which waits until the buffered messages left, then
 * frees it (NULL: nothing). */
mm_status mm__bsend_attach(mm_op_args *a, int64_t messages, void **buf, int *bytes);
void mm__bsend_detach(void *buf);

/* Point-to-point ping-pongs (ops_p2p.c). */
mm_status mm__setup_pingpong(mm_op_args *args);
mm_status mm__setup_pingpong_bsend(mm_op_args *args);
void mm__teardown_pingpong(mm_op_args *args);
int mm__run_pingpong_send_recv(const mm_op_args *args);
int mm__run_pingpong_ssend_recv(const mm_op_args *args);
int mm__run_pingpong_isend_recv(const mm_op_args *args);
int mm__run_pingpong_send_irecv(const mm_op_args *args);
int mm__run_pingpong_isend_irecv(const mm_op_args *args);
int mm__run_pingpong_bsend_recv(const mm_op_args *args);
int mm__run_pingpong_sendrecv(const mm_op_args *args);
int mm__run_pingpong_sendrecv_replace(const mm_op_args *args);
int mm__run_pingpong_iprobe_recv(const mm_op_args *args);
int mm__run_pingpong_anytag(const mm_op_args *args);

/* Master-worker patterns (ops_mw.c). */
mm_status mm__setup_mw(mm_op_args *args);
mm_status mm__setup_mw_bsend(mm_op_args *args);
void mm__teardown_mw(mm_op_args *args);
int mm__run_mw_recv_any(const mm_op_args *args);
int mm__run_mw_waitany(const mm_op_args *args);
int mm__run_mw_waitsome(const mm_op_args *args);
int mm__run_mw_send(const mm_op_args *args);
int mm__run_mw_isend(const mm_op_args *args);
int mm__run_mw_bsend(const mm_op_args *args);
int mm__run_mw_ssend(const mm_op_args *args);
int mm__after_mw_bsend(mm_op_args *args);
/* Master-worker with --workpieces pieces handed out (ops_mw_workpieces.c; its teardown is
 * mm__teardown_mw). */
mm_status mm__setup_mw_workpieces(mm_op_args *args);
int mm__run_mw_workpieces(const mm_op_args *args);

/* Simple calls (ops_simple.c). */
mm_status mm__setup_simple(mm_op_args *args);
void mm__teardown_simple(mm_op_args *args);
int mm__run_simple_empty(const mm_op_args *args);
int mm__run_simple_wtime(const mm_op_args *args);
int mm__run_simple_comm_rank(const mm_op_args *args);
int mm__run_simple_comm_size(const mm_op_args *args);
int mm__run_simple_iprobe(const mm_op_args *args);
int mm__run_simple_comm_split(const mm_op_args *args);
int mm__run_simple_comm_dup(const mm_op_args *args);
int mm__after_simple_free_comm(mm_op_args *args);
mm_status mm__setup_simple_attach(mm_op_args *args);
int mm__run_simple_attach(const mm_op_args *args);

/* Neighborhood collectives (ops_neighbor.c): blocking runs, and the I-forms' setups (their run
 * is mm__run_nbc). */
mm_status mm__setup_neighbor_allgather(mm_op_args *args);
mm_status mm__setup_neighbor_alltoall(mm_op_args *args);
mm_status mm__setup_neighbor_alltoallv(mm_op_args *args);
mm_status mm__setup_ineighbor_allgather(mm_op_args *args);
mm_status mm__setup_ineighbor_alltoall(mm_op_args *args);
mm_status mm__setup_ineighbor_alltoallv(mm_op_args *args);
int mm__run_neighbor_allgather(const mm_op_args *args);
int mm__run_neighbor_alltoall(const mm_op_args *args);
int mm__run_neighbor_alltoallv(const mm_op_args *args);
void mm__teardown_neighbor(mm_op_args *args);
mm_status mm__verify_neighbor(mm_op_args *args, char *why, size_t why_len);
/* --inject-error: rank 0 changes the first byte it sends (0; -1 outside a set-up test). */
mm_status mm__inject_neighbor(mm_op_args *args);

/* A rank's neighbours in the --graph-file graph (ops_graph.c): in-neighbours in rank order,
 * with the index of the block each sends to this rank (its place among its out-neighbours),
 * and out-neighbours in the file's order. 0, or MM_E_FAILED with why (a text that is not a
 * graph, a rank outside it, memory). */
typedef struct mm__graph_adjacency {
    int indegree, outdegree;
    int *sources, *source_block, *destinations;
} mm__graph_adjacency;
mm_status mm__graph_neighbors(const char *text, int rank, mm__graph_adjacency *adj, char *why, size_t why_len);
void mm__graph_adjacency_free(mm__graph_adjacency *adj);

/* What the setups of the one-sided and neighborhood rows allocate on one rank, from the options
 * their setups read (ops_memory.c: mm_op_setup_bytes). Pair rows: on a rank of the pair. */
double mm__rma_pair_setup_bytes(const mm_op *op, int64_t size, int type_size, int burst, int64_t window_bytes);
double mm__rmac_setup_bytes(const mm_op *op, int64_t size, int nprocs, int burst);
double mm__neighbor_setup_bytes(const mm_op *op, const char *graph_text, int cart_ndims, int64_t size,
                                int type_size, int rank, int in_max, int out_max);

/* Persistent collectives (ops_persistent.c). */
#define MM__PERSISTENT_DECL(op)                          \
    mm_status mm__setup_persistent_##op(mm_op_args *args); \
    mm_status mm__setup_persistent_##op##_init(mm_op_args *args);
MM__PERSISTENT_DECL(allgather)
MM__PERSISTENT_DECL(allreduce)
MM__PERSISTENT_DECL(alltoall)
MM__PERSISTENT_DECL(barrier)
MM__PERSISTENT_DECL(bcast)
MM__PERSISTENT_DECL(reduce)
#undef MM__PERSISTENT_DECL
int mm__run_persistent(const mm_op_args *args);
int mm__run_persistent_init(const mm_op_args *args);
int mm__after_persistent_init(mm_op_args *args);
void mm__teardown_persistent(mm_op_args *args);

/* One-sided operations (ops_rma.c, ops_rma_check.c, ops_rma_window.c). */
typedef struct mm__rma_win {
    MPI_Win win;
    int kind;       /* MM_RMA_WIN_* */
    int64_t bytes;  /* this rank's window */
    void *base;     /* its memory */
    void *owned;    /* what we allocated (create, dynamic); NULL when MPI allocates */
} mm__rma_win;
/* The caller's memory of a window (create, dynamic): 0, or MM_E_FAILED with a's message. */
mm_status mm__rma_win_prepare(mm__rma_win *w, int kind, int64_t bytes, mm_op_args *a);
/* A setup's window on comm: prepared, made, errors returned. 0, or MM_E_FAILED with a's message. */
mm_status mm__rma_win_open(mm__rma_win *w, int kind, int64_t bytes, MPI_Comm comm, mm_op_args *a);
int mm__rma_win_make(mm__rma_win *w, MPI_Comm comm);
int mm__rma_win_errors_return(mm__rma_win *w);
int mm__rma_win_unmake(mm__rma_win *w);
void mm__rma_win_release(mm__rma_win *w);

/* The calls of the one-sided rows; a -bw row is its call with a burst of --rma-burst. */
typedef enum {
    MM__RMA_PUT = 0, MM__RMA_GET, MM__RMA_ACC, MM__RMA_GET_ACC, MM__RMA_FOP, MM__RMA_CAS,
    MM__RMA_RPUT, MM__RMA_RGET, MM__RMA_NCALLS
} mm__rma_call;

/* What a one-sided row's setup keeps. Ranks: the window lives on a communicator of the two ranks
 * of the pair, origin = pair[0] (prank 0), target = pair[1] (prank 1); other ranks idle. */
typedef struct mm__rma {
    mm__rma_call call;
    int sync, burst;
    MPI_Comm pc;
    int prank;                 /* 0 origin, 1 target, -1 idle */
    MPI_Group peer;            /* pscw: the other rank of pc */
    mm__rma_win w;
    MPI_Aint disp0;            /* the target displacement of the first operation */
    MPI_Aint block;            /* bytes between two operations of a burst */
    int lock_all_open;         /* lock-all modes: the origin's epoch is open */
    int corrupt;               /* --inject-error: one byte of the data moved was changed */
    long calls;                /* timed calls made (counted after each, outside the timed region) */
    void *compare, *result;    /* compare-and-swap's compare value; fetched values */
    int (*timed)(const mm_op_args *a); /* the call x mode, chosen in setup */
} mm__rma;

mm_status mm__setup_rma_put(mm_op_args *args);
mm_status mm__setup_rma_get(mm_op_args *args);
mm_status mm__setup_rma_acc(mm_op_args *args);
mm_status mm__setup_rma_get_acc(mm_op_args *args);
mm_status mm__setup_rma_fop(mm_op_args *args);
mm_status mm__setup_rma_cas(mm_op_args *args);
mm_status mm__setup_rma_rput(mm_op_args *args);
mm_status mm__setup_rma_rget(mm_op_args *args);
mm_status mm__setup_rma_put_bw(mm_op_args *args);
mm_status mm__setup_rma_get_bw(mm_op_args *args);
int mm__run_rma(const mm_op_args *args);
int mm__after_rma(mm_op_args *args);
void mm__teardown_rma(mm_op_args *args);
mm_status mm__inject_rma(mm_op_args *args);
/* The rma-win-create / rma-win-free rows: every rank of the launch, the window of size bytes. */
mm_status mm__setup_rma_win_create(mm_op_args *args);
mm_status mm__setup_rma_win_free(mm_op_args *args);
int mm__run_rma_win_create(const mm_op_args *args);
int mm__run_rma_win_free(const mm_op_args *args);
int mm__after_rma_win_create(mm_op_args *args);
int mm__after_rma_win_free(mm_op_args *args);
void mm__teardown_rma_win(mm_op_args *args);

/* IMB-RMA's contention patterns (ops_rma_contention.c, rows in ops_rma_contention_rows.h). */
mm_status mm__setup_rma_one_put_all(mm_op_args *args);
mm_status mm__setup_rma_one_get_all(mm_op_args *args);
mm_status mm__setup_rma_all_put_all(mm_op_args *args);
mm_status mm__setup_rma_all_get_all(mm_op_args *args);
mm_status mm__setup_rma_all_put_one(mm_op_args *args);
mm_status mm__setup_rma_all_get_one(mm_op_args *args);
int mm__run_rma_contention(const mm_op_args *args);
int mm__after_rma_contention(mm_op_args *args);
void mm__teardown_rma_contention(mm_op_args *args);
mm_status mm__inject_rma_contention(mm_op_args *args);
mm_status mm__verify_rma_contention(mm_op_args *args, char *why, size_t why_len);

/* ops_rma_check.c: the values a row starts from, and the check after the test. */
void mm__rma_fill(void *buf, int count, MPI_Datatype dt, int type_size, int salt, int small);
/* The memory each side starts from, then a barrier: 0, or MM_E_FAILED with a's message. */
mm_status mm__rma_initial(mm_op_args *a, mm__rma *s);
mm_status mm__verify_rma(mm_op_args *args, char *why, size_t why_len);

/* The setup of a nonblocking row (ops_nbc.c, ops_neighbor.c): the blocking twin's buffers + the
 * I-call to post; without the launch's nbc state and timer the op cannot run (MM_E_FAILED, as
 * out of memory would be). Defines mm__setup_i<op> from mm__setup_<op> and mm__post_i<op>. */
#define MM__NBC_SETUP(op)                                      \
    mm_status mm__setup_i##op(mm_op_args *a) {                 \
        if (!a->nbc || !a->timer)                              \
            return mm__setup_failed(a, "no nonblocking state"); \
        if (mm__setup_##op(a) != 0) return MM_E_FAILED;        \
        a->nbc->post = mm__post_i##op;                         \
        a->nbc->req = MPI_REQUEST_NULL;                        \
        return 0;                                              \
    }

#endif
