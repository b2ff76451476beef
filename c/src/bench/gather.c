/* SPDX-License-Identifier: BSD-3-Clause */
/* gather.c — one test's rows from every rank to rank 0 and into raw.csv, in bounded memory.
 *
 * What: --raw full: rank 0 receives the ranks' arrays a chunk of ranks at a time (as many as fit
 * in MM_GATHER_CHUNK_BYTES, at least one), writes that chunk's rows (mm_raw_write_ranks, rank
 * order as before) and reuses the space. --raw reduced: the reductions over ranks of each
 * repetition are MPI reductions (min start, max local duration, any invalid, min global start,
 * max global end, the slowest rank's component or none when some rank has none), and rank 0
 * writes the one row per repetition that mm_raw_write_test would reduce from the full arrays.
 * Why: gathering everything puts nprocs x nrep x 76 B on rank 0 (78 MB at 1024 ranks x 1000
 * repetitions, and growing with p); now rank 0 holds O(chunk + nrep) with full rows and O(nrep)
 * with reduced ones (one rank's arrays: the reductions' results), and every other rank O(nrep)
 * (memory at scale: docs/GUIDE.md, "Many ranks").
 * Cost: full: one message per array and rank, as many as MPI_Gather moves, and one empty message
 * from rank 0 per rank (it asks a chunk's ranks for their rows only when it has room for them,
 * so that eager messages do not pile up at rank 0 as unexpected ones); reduced: 10 MPI_Reduce
 * of nrep elements instead of 10 gathers of nprocs x nrep.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_output.h"
#include "mm_runtime.h"
#include "mm_error.h"

/* MM__TAG_GO: rank 0's empty message that lets a rank of the current chunk send its rows. */
enum { MM__TAG_ROWS = 4242, MM__NARRAYS = 5 + MM_NBC_NCOMPONENTS, MM__TAG_GO = 4241 };

/* Bytes one rank's arrays of one repetition take: start, end, gstart, gend, the components
 * (int64) and the flags (int32). */
#define MM__BYTES_PER_REP (9 * sizeof(int64_t) + sizeof(int32_t))

int mm_gather_chunk_ranks(long nrep, int nprocs) {
    int64_t per_rank = (int64_t)(nrep > 0 ? nrep : 1) * (int64_t)MM__BYTES_PER_REP;
    int64_t k = MM_GATHER_CHUNK_BYTES / per_rank;
    if (k < 1) k = 1;
    return k < nprocs ? (int)k : nprocs;
}

/* Rank 0's space, in ranks: a chunk for full rows; one rank's worth (the reductions' results) for
 * reduced rows, whatever p. */
static int mm__space_ranks(long nrep, int nprocs, int reduced) {
    return reduced ? 1 : mm_gather_chunk_ranks(nrep, nprocs);
}

int64_t mm_gather_bytes(long nrep, int rank, int nprocs, int reduced) {
    /* every rank: the reduced mode's duration, flag and component scratch */
    int64_t bytes = (int64_t)nrep * (2 * sizeof(int64_t) + sizeof(int32_t));
    if (rank == 0) /* the space, and any_invalid: one flag per repetition */
        bytes += (int64_t)mm__space_ranks(nrep, nprocs, reduced) * nrep * MM__BYTES_PER_REP +
                 (int64_t)nrep * sizeof(int32_t);
    return bytes;
}

mm_status mm_gather_space_alloc(mm_gather_space *g, long nrep, int rank, int nprocs, int reduced) {
    memset(g, 0, sizeof *g);
    g->nrep = nrep;
    g->chunk_ranks = rank == 0 ? mm__space_ranks(nrep, nprocs, reduced) : 0;
    size_t n = (size_t)(nrep > 0 ? nrep : 1);
    size_t chunk = (size_t)(g->chunk_ranks > 0 ? g->chunk_ranks : 1) * n;
    g->scratch = malloc(n * sizeof(int64_t));
    g->duration = malloc(n * sizeof(int64_t));
    g->flag = malloc(n * sizeof(int32_t));
    int ok = g->scratch && g->duration && g->flag;
    if (rank == 0) {
        for (int a = 0; a < 4 + MM_NBC_NCOMPONENTS; a++) ok &= (g->i64[a] = malloc(chunk * sizeof(int64_t))) != NULL;
        ok &= (g->invalid = malloc(chunk * sizeof(int32_t))) != NULL;
        ok &= (g->any_invalid = malloc(n * sizeof(int32_t))) != NULL;
    }
    return ok ? 0 : MM_E_FAILED;
}

void mm_gather_space_free(mm_gather_space *g) {
    for (int a = 0; a < 4 + MM_NBC_NCOMPONENTS; a++) free(g->i64[a]);
    free(g->invalid);
    free(g->any_invalid);
    free(g->scratch);
    free(g->duration);
    free(g->flag);
    memset(g, 0, sizeof *g);
}

/* The rank's own arrays in the order of g->i64: start, end, gstart, gend, then the components. */
static void mm__own_arrays(const mm_rep_buffers *b, const int64_t *own[4 + MM_NBC_NCOMPONENTS]) {
    const int64_t *list[4 + MM_NBC_NCOMPONENTS] = {b->start_ns, b->end_ns, b->gstart_ns, b->gend_ns,
                                                   b->init_ns, b->test_ns, b->wait_ns, b->compute_ns,
                                                   b->blocking_ns};
    memcpy(own, list, sizeof list);
}

/* --raw full, chunk by chunk of ranks. */
static mm_status mm__gather_full(const mm_gather_request *q, const mm_rep_buffers *b, mm_gather_space *g,
                                 mm_mpi_error *err) {
    const int cnt = (int)q->nrep, arrays = 4 + (q->nbc ? MM_NBC_NCOMPONENTS : 0);
    const int64_t *own[4 + MM_NBC_NCOMPONENTS];
    mm__own_arrays(b, own);
    /* every rank learns the chunk size rank 0 chose (it alone holds the space) */
    int k = g->chunk_ranks;
    if (MM_MPI(err, MPI_Bcast(&k, 1, MPI_INT, 0, q->comm)) != MPI_SUCCESS) return 0; /* failure in err */
    if (k < 1)
        return mm_error_set(q->why, q->why_len, "rank 0 asked for the rows in chunks of %d ranks; "
                            "at least 1", k);
    int write_ok = 1;
    if (q->rank == 0) memset(g->any_invalid, 0, (size_t)(cnt > 0 ? cnt : 1) * sizeof(int32_t));
    for (int first = 0; first < q->nprocs; first += k) {
        int last = first + k < q->nprocs ? first + k : q->nprocs;
        if (q->rank != 0) {
            if (q->rank < first || q->rank >= last) continue;
            /* Rows small enough to go eagerly (8 kB at 1000 repetitions) would otherwise all
             * leave at once and wait at rank 0 as unexpected messages: p x nrep in its MPI
             * library, the memory the chunks are there to bound. Send when rank 0 asks. */
            MM_MPI(err, MPI_Recv(NULL, 0, MPI_BYTE, 0, MM__TAG_GO, q->comm, MPI_STATUS_IGNORE));
            for (int a = 0; a < arrays; a++)
                MM_MPI(err, MPI_Send(own[a], cnt, MPI_INT64_T, 0, MM__TAG_ROWS + a, q->comm));
            MM_MPI(err, MPI_Send(b->invalid, cnt, MPI_INT32_T, 0, MM__TAG_ROWS + MM__NARRAYS, q->comm));
            continue;
        }
        for (int r = first > 0 ? first : 1; r < last; r++)
            MM_MPI(err, MPI_Send(NULL, 0, MPI_BYTE, r, MM__TAG_GO, q->comm));
        for (int r = first; r < last; r++) {
            size_t at = (size_t)(r - first) * (size_t)cnt;
            for (int a = 0; a < arrays; a++) {
                if (r == 0)
                    memcpy(g->i64[a] + at, own[a], (size_t)cnt * sizeof(int64_t));
                else
                    MM_MPI(err, MPI_Recv(g->i64[a] + at, cnt, MPI_INT64_T, r, MM__TAG_ROWS + a, q->comm,
                                         MPI_STATUS_IGNORE));
            }
            if (r == 0)
                memcpy(g->invalid + at, b->invalid, (size_t)cnt * sizeof(int32_t));
            else
                MM_MPI(err, MPI_Recv(g->invalid + at, cnt, MPI_INT32_T, r, MM__TAG_ROWS + MM__NARRAYS, q->comm,
                                     MPI_STATUS_IGNORE));
            for (int rep = 0; rep < cnt; rep++) g->any_invalid[rep] |= g->invalid[at + (size_t)rep] != 0;
        }
        if (mm_mpi_failed(err) || !write_ok) continue; /* keep receiving: the senders must not hang */
        const int64_t *components[MM_NBC_NCOMPONENTS];
        for (int c = 0; c < MM_NBC_NCOMPONENTS; c++) components[c] = g->i64[4 + c];
        write_ok = mm_raw_write_ranks(q->raw, q->test, first, last - first, cnt, g->i64[0], g->i64[1], g->i64[2],
                                      g->i64[3], g->invalid, q->nbc ? components : NULL, q->epoch_ns,
                                      q->has_global) == 0;
    }
    return write_ok ? 0 : MM_E_FAILED;
}

/* MPI_Reduce of n int64 to rank 0 (recv ignored elsewhere). */
static int mm__reduce(const mm_gather_request *q, const int64_t *send, int64_t *recv, MPI_Op op, mm_mpi_error *err) {
    return MM_MPI(err, MPI_Reduce(send, q->rank == 0 ? recv : NULL, (int)q->nrep, MPI_INT64_T, op, 0, q->comm));
}

/* A reduction's input: a timed rank's own values, else the reduction's neutral element in
 * g->scratch (each reduction completes before the next fills it). */
static const int64_t *mm__timed_or(mm_gather_space *g, const int64_t *own, long n, int timed, int64_t neutral) {
    if (timed) return own;
    for (long rep = 0; rep < n; rep++) g->scratch[rep] = neutral;
    return g->scratch;
}

/* --raw reduced: the reductions over ranks, then one row per repetition. */
static mm_status mm__gather_reduced(const mm_gather_request *q, const mm_rep_buffers *b, mm_gather_space *g,
                                    mm_mpi_error *err) {
    const long n = q->nrep;
    /* a rank whose times are not the run time (a round trip's answering rank) gives the neutral
     * element of each reduction; its flags still count (every rank's start is checked) */
    const int timed = mm_rep_rank_is_timed(q->timed_rank, q->rank);
    for (long rep = 0; rep < n; rep++) {
        g->duration[rep] = timed ? mm_rep_duration_ns(b->start_ns[rep], b->end_ns[rep]) : INT64_MIN;
        g->flag[rep] = b->invalid[rep] != 0;
    }
    int64_t **out = g->i64; /* on rank 0: start, end (built below), gstart, gend, components */
    mm__reduce(q, mm__timed_or(g, b->start_ns, n, timed, INT64_MAX), out[0], MPI_MIN, err);
    mm__reduce(q, g->duration, out[1], MPI_MAX, err);
    mm__reduce(q, mm__timed_or(g, b->gstart_ns, n, timed, INT64_MAX), out[2], MPI_MIN, err);
    mm__reduce(q, mm__timed_or(g, b->gend_ns, n, timed, INT64_MIN), out[3], MPI_MAX, err);
    MM_MPI(err, MPI_Reduce(g->flag, q->rank == 0 ? g->any_invalid : NULL, (int)n, MPI_INT32_T, MPI_MAX, 0,
                           q->comm));
    const int64_t *own[4 + MM_NBC_NCOMPONENTS];
    mm__own_arrays(b, own);
    for (int c = 0; q->nbc && c < MM_NBC_NCOMPONENTS; c++) {
        /* a rank without the component (INT64_MIN) must win the maximum: it leaves the cell empty */
        for (long rep = 0; rep < n; rep++)
            g->scratch[rep] = own[4 + c][rep] == INT64_MIN ? INT64_MAX : own[4 + c][rep];
        mm__reduce(q, g->scratch, out[4 + c], MPI_MAX, err);
    }
    if (q->rank != 0 || mm_mpi_failed(err)) return 0;
    for (long rep = 0; rep < n; rep++) {
        out[1][rep] = mm_rep_reduced_end_ns(out[0][rep], out[1][rep]);
        for (int c = 0; q->nbc && c < MM_NBC_NCOMPONENTS; c++)
            if (out[4 + c][rep] == INT64_MAX) out[4 + c][rep] = INT64_MIN;
    }
    const int64_t *components[MM_NBC_NCOMPONENTS];
    for (int c = 0; c < MM_NBC_NCOMPONENTS; c++) components[c] = out[4 + c];
    return mm_raw_write_test(q->raw, q->test, 1, n, out[0], out[1], out[2], out[3], g->any_invalid,
                             q->nbc ? components : NULL, q->epoch_ns, q->has_global, 1);
}

mm_status mm_gather_write_test(const mm_gather_request *q, const mm_rep_buffers *b, mm_gather_space *g,
                               long *ninvalid, mm_mpi_error *err) {
    int rc = q->reduced ? mm__gather_reduced(q, b, g, err) : mm__gather_full(q, b, g, err);
    if (q->rank == 0 && ninvalid) {
        long bad = 0;
        for (long rep = 0; rep < q->nrep; rep++) bad += g->any_invalid[rep] != 0;
        *ninvalid = bad;
    }
    return rc;
}
