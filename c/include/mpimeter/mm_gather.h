/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_gather.h — a test's per-rank repetition arrays and their way to rank 0 and raw.csv
 * (gather.c). */
#ifndef MM_GATHER_H
#define MM_GATHER_H
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include "mm_mpi.h"
#include "mm_ops.h"
#include "mm_test.h"

/* Per-rank buffers of one test, preallocated before the loop. */
typedef struct mm_rep_buffers {
    long cap;
    int64_t *start_ns, *end_ns;   /* local, raw (epoch not yet subtracted) */
    int64_t *gstart_ns, *gend_ns; /* global */
    int32_t *invalid;             /* flags */
    /* nonblocking collectives: the components of each repetition (ns) and, from the test's
     * blocking phase, the I-call + wait time and flags of the repetition with the same index */
    int64_t *init_ns, *test_ns, *wait_ns, *compute_ns, *blocking_ns;
    int32_t *blocking_flags;
    /* per-repetition counters (mm_counters.h), not owned; NULL when off */
    struct mm_counters *counters;
} mm_rep_buffers;
mm_status mm_rep_buffers_alloc(mm_rep_buffers *b, long cap);
void mm_rep_buffers_free(mm_rep_buffers *b);

/* One test's rows from every rank to rank 0 and into raw.csv in bounded memory (gather.c): full
 * rows a chunk of ranks at a time (at most MM_GATHER_CHUNK_BYTES of arrays on rank 0), reduced
 * rows by MPI reductions (O(nrep)). */
#define MM_GATHER_CHUNK_BYTES ((int64_t)4 << 20)
typedef struct mm_gather_space {
    long nrep;
    int chunk_ranks;                          /* rank 0: ranks whose arrays fit at once */
    int64_t *i64[4 + MM_NBC_NCOMPONENTS];     /* rank 0: start, end, gstart, gend, components */
    int32_t *invalid, *any_invalid;           /* rank 0: chunk flags; per repetition, any rank */
    int64_t *scratch, *duration;              /* every rank: the reduced mode's inputs */
    int32_t *flag;
} mm_gather_space;
typedef struct mm_gather_request {
    MPI_Comm comm;
    int rank, nprocs;
    FILE *raw;              /* rank 0 */
    const mm_test *test;
    long nrep;              /* the same on every rank */
    int nbc, has_global, reduced;
    int timed_rank;         /* mm_rep_timed_rank: the rank whose times make the run time, or MM_REP_EVERY_RANK */
    int64_t epoch_ns;
    char *why;              /* this rank's words when the rows cannot reach raw.csv ("": none) */
    size_t why_len;
} mm_gather_request;
int mm_gather_chunk_ranks(long nrep, int nprocs);
/* What mm_gather_space_alloc takes; with --raw reduced rank 0 needs one rank's space, not a chunk. */
int64_t mm_gather_bytes(long nrep, int rank, int nprocs, int reduced);
mm_status mm_gather_space_alloc(mm_gather_space *g, long nrep, int rank, int nprocs, int reduced);
void mm_gather_space_free(mm_gather_space *g);
/* Collective. 0, or MM_E_FAILED when rank 0 could not write (its return; others return 0); MPI failures
 * in err. *ninvalid (rank 0): repetitions invalid on some rank. */
mm_status mm_gather_write_test(const mm_gather_request *q, const mm_rep_buffers *b, mm_gather_space *g,
                               long *ninvalid, mm_mpi_error *err);

#endif
