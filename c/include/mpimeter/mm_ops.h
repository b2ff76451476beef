/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_ops.h — the operation table. An operation is a row: name, pattern, constraints, and
 * three functions; adding an operation is adding a row, never a new measurement loop. */
#ifndef MM_OPS_H
#define MM_OPS_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "mm_timer.h"

enum {
    MM_OP_REDUCES = 1u << 0,          /* uses --reduce-op */
    MM_OP_ROOTED = 1u << 1,           /* uses --root */
    MM_OP_SIZE_IS_DURATION = 1u << 2, /* size is nanoseconds (delay) */
    MM_OP_SIZE_UNUSED = 1u << 3,      /* barrier: one test at size 0, whatever --sizes says */
    MM_OP_FINISH_APART = 1u << 4,     /* ranks leave the call at different times by design (the
                                         root of a bcast first, the last rank of a scan last) */
    MM_OP_PAIR = 1u << 5,             /* a ping-pong between the two ranks of --pair (or the pair
                                         chosen by the launch); needs an even number >= 2 of ranks */
    MM_OP_ROUND_TRIP = 1u << 6,       /* the timed call is one round trip (two messages): the
                                         analysis reports half of it as the one-way latency */
    MM_OP_NEEDS_TWO = 1u << 7,        /* needs at least 2 ranks (master-worker) */
    MM_OP_WORKPIECES = 1u << 8,       /* uses --workpieces: one test per value (mw-workpieces) */
    MM_OP_SIZE_IS_MEMORY = 1u << 9,   /* size is bytes of memory (a window, a buffer to attach),
                                         not elements of --datatype: any whole number of bytes */
};

/* What kind of pattern an operation is (--describe, meta.json "operations"). */
#define MM_OP_KIND_COLLECTIVE "collective"
#define MM_OP_KIND_ROOTED "rooted-collective"
#define MM_OP_KIND_P2P "point-to-point"
#define MM_OP_KIND_NBC "nonblocking"
#define MM_OP_KIND_LOCAL "local"
#define MM_OP_KIND_MASTER_WORKER "master-worker"
#define MM_OP_KIND_SIMPLE "simple"
#define MM_OP_KIND_RMA "one-sided"
#define MM_OP_KIND_PERSISTENT "persistent"

/* One-sided operations (ops_rma*.c): the synchronization of the access epoch (--rma-sync) and
 * the kind of window (--rma-window), as the words of the options, in index order. */
enum { MM_RMA_FENCE = 0, MM_RMA_PSCW, MM_RMA_LOCK, MM_RMA_LOCK_SHARED, MM_RMA_FLUSH, MM_RMA_FLUSH_LOCAL };
#define MM_RMA_SYNC_WORDS "fence,pscw,lock,lock-shared,lock-all-flush,lock-all-flush-local"
enum { MM_RMA_WIN_CREATE = 0, MM_RMA_WIN_ALLOCATE, MM_RMA_WIN_ALLOCATE_SHARED, MM_RMA_WIN_DYNAMIC };
#define MM_RMA_WINDOW_WORDS "create,allocate,allocate-shared,dynamic"
/* Neighborhood collectives (ops_neighbor.c): at most this many Cartesian dimensions. */
#define MM_CART_MAX_DIMS 8

/* What a one-sided op's setup needs from the options. */
typedef struct mm_rma_params {
    int sync;             /* MM_RMA_FENCE ... */
    int window;           /* MM_RMA_WIN_CREATE ... */
    int burst;            /* operations per epoch of the -bw rows (OSU's -w) */
    int64_t window_bytes; /* each rank's window; 0 = what the op needs */
} mm_rma_params;

struct mm_op_args;

/* The least data one rank must receive (or, for scatter, the root send) in the operation, as a
 * multiple of size: the data term of the bound the analysis shows next to the measurements
 * (Hoefler & Belli 2015, rule 11). The multiples are the bandwidth lower bounds of Chan,
 * Heimlich, Purkayastha & van de Geijn 2007 ("Collective communication: theory, practice, and
 * experience", Table 1): a reduction to all needs 2(p-1)/p x size in and out of each rank
 * (reduce-scatter then allgather), a reduction to one or reduce-scatter (p-1)/p x size, gather,
 * scatter, allgather and alltoall (p-1) blocks, a broadcast and a scan one whole vector. None
 * is stated for operations whose timed call is not just data movement (nonblocking collectives
 * include computation; master-worker, simple calls and delay). */
typedef enum mm_op_volume {
    MM_VOL_NONE = 0,    /* no bound stated */
    MM_VOL_ZERO,        /* no data (barrier): the bound is one message latency */
    MM_VOL_SIZE,        /* size (0 on one rank) */
    MM_VOL_PM1_OVER_P,  /* (p-1)/p x size */
    MM_VOL_2PM1_OVER_P, /* 2(p-1)/p x size */
    MM_VOL_PM1,         /* (p-1) x size */
    MM_VOL_RMA_BURST,   /* --rma-burst x size (one-sided -bw rows) */
    MM_VOL_NEIGHBORS,   /* in-neighbours x size: a block from each (2 x ndims on the torus) */
} mm_op_volume;

/* A nonblocking collective's repetition (Hoefler, Schneider & Lumsdaine 2010 §4, NBCBench): the
 * I-call, then `compute_ns` of computation split into ntests + 1 equal parts with one MPI_Test
 * between parts, then MPI_Wait. In the blocking phase (the same test's own repetitions) the
 * I-call is followed by MPI_Wait at once. The launch prepares everything but `post` (the op's
 * setup sets it); the timed call leaves its instants here, read after the end timestamp. */
enum { MM_NBC_BLOCKING = 0, MM_NBC_OVERLAP = 1 };
/* The recorded components, in raw.csv's column order: init_ns, test_ns, wait_ns, compute_ns,
 * blocking_ns. */
#define MM_NBC_NCOMPONENTS 5
typedef struct mm_nbc {
    int (*post)(const struct mm_op_args *args, MPI_Request *req); /* the I-call */
    int phase;           /* MM_NBC_BLOCKING or MM_NBC_OVERLAP */
    int work_scheme;     /* 0: busy-wait on the timer (time-based); 1: calibrated work */
    int64_t compute_ns;  /* t_b, the same on every rank */
    long work_units;     /* work-based: units this rank calibrated to take t_b alone */
    int ntests;          /* MPI_Test calls during the computation */
    MPI_Request req;
    /* the last call, on the timer: the I-call returned, MPI_Wait was entered, time in tests */
    int64_t posted_ns, wait_entered_ns, test_ns;
} mm_nbc;

/* Everything one timed call needs, prepared before the loop. */
typedef struct mm_op_args {
    MPI_Comm comm;
    int rank, nprocs, root;
    MPI_Datatype datatype;
    int type_size;
    MPI_Op reduce_op;
    int64_t size;         /* bytes (or ns for delay) */
    int count;            /* elements per block = size / type_size */
    void *sendbuf, *recvbuf;
    int *sendcounts, *sdispls, *recvcounts, *rdispls; /* v-variants, in elements */
    const mm_timer *timer; /* delay, nonblocking collectives */
    mm_nbc *nbc;           /* nonblocking collectives only (NULL otherwise) */
    int pair[2];           /* ping-pongs: the two ranks (pair[0] starts the round trip) */
    void *state;           /* what an op's setup keeps for its run/after/teardown (a Bsend
                              buffer, a communicator created by the timed call) */
    mm_rma_params rma;     /* one-sided ops only */
    int cart_ndims;        /* neighborhood collectives: --cart-dims (0 = MPI_Dims_create, 2-D) */
    int cart_dims[MM_CART_MAX_DIMS];
    const char *graph_text; /* neighborhood collectives: --graph-file's text; NULL: Cartesian */
    int workpieces;        /* mw-workpieces: the pieces the master hands out (the test's) */
    char error[256];       /* a failed setup's one line, what failed and why (mm_error.h); ""
                              after a setup that held */
} mm_op_args;

/* The buffers an op's setup allocates, in blocks of `size` bytes: every rank holds
 * blocks + blocks_x_nprocs * nprocs, the root that much more of root_*. */
typedef struct mm_op_buffers {
    unsigned char blocks, blocks_x_nprocs, root_blocks, root_blocks_x_nprocs;
} mm_op_buffers;

typedef struct mm_op {
    const char *name;
    const char *kind;        /* MM_OP_KIND_* */
    const char *pattern;     /* one line: who sends what to whom */
    const char *constraints; /* one line: what sizes/datatypes/ops are allowed */
    unsigned flags;
    /* Allocates and fills buffers for args->size; returns 0, or MM_E_FAILED with its message in
     * args->error (out of memory, arguments the row cannot take, an MPI call that failed). */
    mm_status (*setup)(mm_op_args *args);
    /* The one MPI call that is timed. Returns the MPI error code. */
    int (*run)(const mm_op_args *args);
    void (*teardown)(mm_op_args *args);
    mm_op_buffers buffers;
    /* Optional (NULL for most rows): called by the loop after the end timestamp of every
     * repetition, outside the timed region — frees what the timed call created (the communicator
     * of MPI_Comm_split). Returns the MPI error code. */
    int (*after)(mm_op_args *args);
    mm_op_volume volume; /* the data term of its bound (above) */
    /* Optional (NULL for most rows): collective, called once after the test's repetitions when
     * every rank's calls succeeded — checks that the memory the operations wrote holds what
     * they were to write (one-sided ops). 0, or MM_E_FAILED with why (wrong data), or MM_E_MPI
     * with the failed call's error in why. */
    mm_status (*verify)(mm_op_args *args, char *why, size_t why_len);
} mm_op;

extern const mm_op mm_ops_table[];
extern const size_t mm_ops_count;
const mm_op *mm_op_find(const char *name);
/* Every operation's name, comma-separated, in table order. */
const char *mm_op_names(void);
/* The volume of an op's bound as words ("2(p-1)/p x size"; NULL: no bound stated), and as a
 * multiple of size on nprocs ranks (< 0: no bound stated). Pure. */
const char *mm_op_volume_formula(const mm_op *op);
double mm_op_volume_factor(const mm_op *op, int nprocs);
/* "bytes", or "ns" for operations whose size is a duration. */
const char *mm_op_size_unit(const mm_op *op);
/* The MPI function a collective's row calls ("MPI_Reduce_scatter_block", "MPI_Iallreduce", from
 * the row's name), for error messages; the op's own name for other kinds. */
void mm_op_call_name(const mm_op *op, char *out, size_t len);
/* Test only (--inject-error): makes the prepared call invalid in a way both libraries refuse on
 * every rank alike before communicating (a root that is no rank; MPI_OP_NULL). 0, or MM_E_FAILED
 * when the op takes neither a root nor a reduction. */
mm_status mm_op_inject_error(const mm_op *op, mm_op_args *args);

/* Is the op a nonblocking collective (kind MM_OP_KIND_NBC)? Its tests run a blocking phase and
 * an overlap phase and record per-repetition components (docs/FORMAT.md, raw.csv). */
int mm_op_is_nbc(const mm_op *op);

/* One unit of the work-based scheme's computation: floating-point work on a few cache lines that
 * touches no MPI state (NBCBench's workload). Returns a value to keep the compiler from dropping
 * it. */
double mm_nbc_work(long units);
/* Units of mm_nbc_work that take about target_ns on this rank when run alone: grown until one
 * run takes a quarter of the target, scaled, then checked and rescaled once against the median
 * of 5 runs. *measured_ns: the median time of the units returned. */
long mm_nbc_calibrate(const mm_timer *timer, int64_t target_ns, int64_t *measured_ns);

/* Checks a size for an op under a datatype: 0, or MM_E_INPUT with a message ("size 10 is not a multiple
 * of the size of int (4 bytes)"). */
mm_status mm_op_check_size(const mm_op *op, int64_t size, int type_size, char *why, size_t why_len);

/* Bytes of the buffers setup allocates for a size on one rank (is_root: the --root rank), to
 * check memory before allocating. Leaves out what does not scale with the size as a whole
 * (v-variants' one-element gaps, reduce_scatter's size/nprocs share, counts arrays).
 * Saturates at INT64_MAX. */
int64_t mm_op_buffer_bytes(const mm_op *op, int64_t size, int nprocs, int is_root);
/* What the op's setup allocates on `rank` (of nprocs; is_root: the test's root) for a test of
 * size bytes under the launch's options c: mm_op_buffer_bytes, but for the one-sided rows
 * (--rma-burst, --rma-window-bytes, the contention patterns' nprocs x burst windows, and the
 * check after the test beside them) and the neighborhood collectives (the rank's degrees on
 * --graph-file, 2 x ndims of --cart-dims) what their setups compute. A pair's rows allocate on
 * the pair's two ranks only; this is what one of them allocates. Saturates at INT64_MAX.
 * (ops_memory.c) */
struct mm_config;
int64_t mm_op_setup_bytes(const mm_op *op, const struct mm_config *c, int64_t size, int nprocs, int rank,
                          int is_root);

/* Datatype and reduction-op names. The lookups return 1 when the name is known (filling the
 * outputs that are not NULL) and 0 when unknown; sizes are sizeof the C type, so lookups work
 * before MPI_Init. */
int mm_datatype_lookup(const char *name, MPI_Datatype *dt, int *size);
const char *mm_datatype_names(void);
int mm_reduce_op_lookup(const char *name, MPI_Op *op);
const char *mm_reduce_op_names(void);
/* For --describe: the i-th datatype (its size in bytes and kind: "byte", "char", "integer",
 * "float") and the i-th reduction op, in table order; NULL past the end. */
const char *mm_datatype_at(size_t i, int *size, const char **kind);
const char *mm_reduce_op_at(size_t i);
/* Some reduction ops are not defined for some datatypes (bor on float): 0 ok, MM_E_INPUT with why. */
mm_status mm_reduce_op_check(const char *op_name, const char *datatype_name, char *why, size_t len);

/* Can the op run on nprocs ranks? 0, or MM_E_INPUT with why ("pingpong-send-recv needs an even number of
 * ranks, at least 2 (got 3)"). */
mm_status mm_op_check_nprocs(const mm_op *op, int nprocs, char *why, size_t why_len);

/* Does this build's MPI library have the op? 1, or 0 with why (the MPI-4 persistent
 * collectives where the library lacks them; checked at build time). mm_persistent_available:
 * the same for the persistent rows as a whole. */
int mm_op_available(const mm_op *op, char *why, size_t why_len);
int mm_persistent_available(char *why, size_t why_len);

/* Does the op take --workpieces (MM_OP_WORKPIECES: one test per value)? */
int mm_op_uses_workpieces(const mm_op *op);

/* Is the op one-sided (kind MM_OP_KIND_RMA)? Does it take --rma-sync (an epoch around data
 * movement; the window create/free rows do not)? Does it take --rma-burst (a -bw row)? */
int mm_op_is_rma(const mm_op *op);
/* Is the op a neighborhood collective (on the Cartesian topology of --cart-dims, or the graph of
 * --graph-file)? */
int mm_op_is_neighbor(const mm_op *op);
/* --graph-file's text (ops_graph.c, docs/FORMAT.md): is it a graph? 0 with its facts (nodes,
 * edges, degrees, digest), or MM_E_INPUT with why (one line, saying what is allowed). Pure. */
struct mm_graph_facts;
mm_status mm_graph_check(const char *text, size_t len, struct mm_graph_facts *facts, char *why, size_t why_len);
int mm_op_uses_rma_sync(const mm_op *op);
int mm_op_uses_rma_burst(const mm_op *op);
/* Is the op one of IMB-RMA's contention patterns (one-to-all, all-to-all, all-to-one on every
 * rank, ops_rma_contention.c)? Its window is nprocs x --rma-burst x size: it takes no
 * --rma-window-bytes. */
int mm_op_is_rma_contention(const mm_op *op);
/* Can the op run in this synchronization mode? 0, or MM_E_INPUT with why (request-based MPI_Rput/MPI_Rget
 * need a passive-target epoch, MPI-3.1 §11.3.5). */
mm_status mm_op_check_rma_sync(const mm_op *op, int sync, char *why, size_t why_len);
/* Bytes of an op's window on one rank for a size (burst: --rma-burst); 0 for other ops. */
int64_t mm_op_rma_window_need(const mm_op *op, int64_t size, int type_size, int burst);
/* Collective over comm: can the window kind be made on these ranks? (allocate-shared needs every
 * rank of comm on one shared-memory node.) 0, MM_E_INPUT with why, or MM_E_FAILED with the MPI
 * failure in why. */
mm_status mm_rma_check_placement(int window_kind, MPI_Comm comm, char *why, size_t why_len);

struct mm_config;
struct mm_op_facts;
/* The launch record's "operations" (mm_facts.h): one entry per known operation of c->ops, in
 * that order, as it behaves on nprocs ranks. Fills at most max; returns how many. */
int mm_op_facts_of_config(const struct mm_config *c, int nprocs, struct mm_op_facts *out, int max);
/* The data term of the op's bound as a multiple of size on a communicator of nprocs ranks under
 * the options c (--rma-burst, --cart-dims); < 0: no bound stated. What meta.json's
 * operations[].bound_volume.bytes_per_size gives for the launch, and tests[].bound_bytes_per_size
 * for each test's own communicator (--nprocs LIST). Pure. */
double mm_op_bytes_per_size(const mm_op *op, const struct mm_config *c, int nprocs);

#endif
