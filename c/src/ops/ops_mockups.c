/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_mockups.c — the mock-up operations: the right-hand sides of the self-consistent
 * performance guidelines, each a composition of MPI calls timed as one region with the same
 * result as the collective it mocks up ("allreduce-as-reduce-bcast" gives every rank what
 * MPI_Allreduce gives). A library whose collective is slower than its own mock-up violates the
 * guideline "the specialized operation is no slower than a composition doing the same".
 *
 * What: one setup, run and teardown per mock-up (its row is in ops_mockups_rows.h, the relation
 * "mock-up of op X, made of calls A, B" in mm_mockups below, which --describe shows). Each setup
 * is the original's setup (the same inputs, buffers and size semantics: size is the original
 * op's size) plus the temporaries of the composition in args->state; the result lies where the
 * original puts it (recvbuf; bcast: the one buffer), possibly followed by padding.
 * Sizes not divisible by nprocs: the compositions that split a vector of count elements into
 * nprocs equal blocks (reduce_scatter_block, scatter as a first step) ROUND UP: they move
 * ceil(count/nprocs) * nprocs elements, the padding zero and its result discarded. The mock-up
 * then does at most nprocs-1 elements more than the original: a guideline violation it reports
 * cannot come from the padding.
 * Datatype-free steps: allgather-as-allreduce and gather-as-reduce reduce a vector that holds
 * each rank's block at its place and zero bytes elsewhere with MPI_BOR on MPI_BYTE, which gives
 * the blocks back bit for bit for every datatype (and needs no reduction defined on it).
 * Rooted steps of an op without a root (reduce then bcast, ...) use root 0; mock-ups of rooted
 * ops use --root.
 * Cost: setup O(nprocs * size) like the originals, outside the timed region.
 * Paper: Träff, Gropp & Thakur 2010 (self-consistent MPI performance guidelines, IEEE TPDS) and
 * Träff 2012 (mpicroscope, cited by Hunold & Carpen-Amarie 2016 as [4]); the catalogue follows
 * the PGMPI work (Hunold, Carpen-Amarie, Lübbe & Träff 2016). */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "mockup_compose.h"
#include "ops_mockups.h"
#include "mm_error.h"

/* The temporaries of one composition. */
typedef struct mm__mockup_state {
    void *tmp;      /* an intermediate vector (or the repeated/placed send blocks) */
    int *displs;    /* reduce_scatter-as-reduce-scatterv, allreduce-as-rs-allgatherv: where rank i's share starts */
    int *counts;    /* allreduce-as-rs-allgatherv: rank i's share (elements) */
    int block;      /* padded block (elements): ceil(count / nprocs) */
    int offset;     /* reduce_scatter-as-allreduce: this rank's share's start (elements) */
    int bytes;      /* the MPI_BYTE count of the datatype-free steps */
} mm__mockup_state;

const mm_mockup mm_mockups[] = {
    {"allreduce-as-reduce-bcast", "allreduce", {"reduce", "bcast"}},
    {"allreduce-as-rsb-allgather", "allreduce", {"reduce_scatter_block", "allgather"}},
    {"allreduce-as-rs-allgatherv", "allreduce", {"reduce_scatter", "allgatherv"}},
    {"allgather-as-gather-bcast", "allgather", {"gather", "bcast"}},
    {"allgather-as-alltoall", "allgather", {"alltoall", NULL}},
    {"allgather-as-allreduce", "allgather", {"allreduce", NULL}},
    {"bcast-as-scatter-allgather", "bcast", {"scatter", "allgather"}},
    {"gather-as-allgather", "gather", {"allgather", NULL}},
    {"gather-as-reduce", "gather", {"reduce", NULL}},
    {"reduce-as-allreduce", "reduce", {"allreduce", NULL}},
    {"reduce-as-rsb-gather", "reduce", {"reduce_scatter_block", "gather"}},
    {"rs-as-allreduce", "reduce_scatter", {"allreduce", NULL}},
    {"rs-as-reduce-scatterv", "reduce_scatter", {"reduce", "scatterv"}},
    {"rsb-as-reduce-scatter", "reduce_scatter_block", {"reduce", "scatter"}},
    {"scan-as-exscan-reduce_local", "scan", {"exscan", "reduce_local"}},
    {"scatter-as-bcast", "scatter", {"bcast", NULL}},
};
const size_t mm_mockups_count = sizeof mm_mockups / sizeof mm_mockups[0];

const mm_mockup *mm_mockup_of(const mm_op *op) {
    if (!op) return NULL;
    for (size_t i = 0; i < mm_mockups_count; i++)
        if (strcmp(mm_mockups[i].name, op->name) == 0) return &mm_mockups[i];
    return NULL;
}

#define MM__STATE(a) ((mm__mockup_state *)(a)->state)
#define MM__AT(buf, elems, a) ((unsigned char *)(buf) + (size_t)(elems) * (size_t)(a)->type_size)

void mm__mockup_teardown(mm_op_args *a) {
    mm__mockup_state *s = MM__STATE(a);
    if (s) {
        free(s->tmp);
        free(s->displs);
        free(s->counts);
        free(s);
    }
    a->state = NULL;
    mm__coll_teardown(a);
}

/* The original's setup, then an empty state. */
static mm_status mm__begin(mm_op_args *a, mm_status (*original)(mm_op_args *)) {
    if (original(a)) return MM_E_FAILED;
    a->state = calloc(1, sizeof(mm__mockup_state));
    if (!a->state) {
        mm__coll_teardown(a);
        return mm__setup_no_memory(a, "the mock-up's state", (int64_t)sizeof(mm__mockup_state));
    }
    return 0;
}

static mm_status mm__end(mm_op_args *a, int failed) {
    if (failed) mm__mockup_teardown(a);
    return failed ? MM_E_FAILED : 0;
}

/* elems elements, zeroed (at least one, as the originals' buffers). */
static mm_status mm__zeroed(void **out, int64_t elems, mm_op_args *a) {
    int64_t n = elems > 0 ? elems : 1;
    if (n > INT_MAX || n > (int64_t)(SIZE_MAX / 2) / a->type_size)
        return mm__setup_failed(a, "a temporary of %lld elements: more than an MPI count holds (%d)",
                                (long long)n, INT_MAX);
    *out = mm__buffer_calloc((size_t)n, (size_t)a->type_size);
    return *out ? 0 : mm__setup_no_memory(a, "a temporary buffer", n * a->type_size);
}

/* Grows a buffer of `old` elements to `new` (the tail zeroed). */
static mm_status mm__grow(void **buf, int64_t old, int64_t new, mm_op_args *a) {
    if (new <= old) return 0;
    if (new > INT_MAX)
        return mm__setup_failed(a, "a padded buffer of %lld elements: more than an MPI count holds (%d)",
                                (long long)new, INT_MAX);
    void *grown = realloc(*buf, (size_t)new * (size_t)a->type_size);
    if (!grown) return mm__setup_no_memory(a, "a padded buffer", new * a->type_size);
    memset(MM__AT(grown, old, a), 0, (size_t)(new - old) * (size_t)a->type_size);
    *buf = grown;
    return 0;
}

/* The padded block ceil(count / nprocs), so that nprocs blocks hold the vector. */
static mm_status mm__pad_block(mm_op_args *a) {
    int64_t block = ((int64_t)a->count + a->nprocs - 1) / a->nprocs;
    if (block * a->nprocs > INT_MAX)
        return mm__setup_failed(a, "%d padded blocks of %lld elements: more than an MPI count holds (%d)",
                                a->nprocs, (long long)block, INT_MAX);
    MM__STATE(a)->block = (int)block;
    return 0;
}

/* nprocs blocks of count elements fit one MPI count. */
static mm_status mm__all_fit(mm_op_args *a) {
    if ((int64_t)a->count * a->nprocs <= INT_MAX) return 0;
    return mm__setup_failed(a, "%d blocks of %d elements: more than an MPI count holds (%d)", a->nprocs,
                            a->count, INT_MAX);
}

/* state->tmp = nprocs blocks of count elements, zero but the own block (a copy of sendbuf), and
 * its byte count for the MPI_BOR on MPI_BYTE. */
static mm_status mm__placed_blocks(mm_op_args *a) {
    mm__mockup_state *s = MM__STATE(a);
    int64_t elems = (int64_t)a->count * a->nprocs;
    if (elems * a->type_size > INT_MAX)
        return mm__setup_failed(a, "%lld bytes of placed blocks: more than an MPI count holds (%d)",
                                (long long)(elems * a->type_size), INT_MAX);
    if (mm__zeroed(&s->tmp, elems, a)) return MM_E_FAILED;
    memcpy(MM__AT(s->tmp, (int64_t)a->count * a->rank, a), a->sendbuf, (size_t)a->count * (size_t)a->type_size);
    s->bytes = (int)(elems * a->type_size);
    return 0;
}

/* ---- allreduce ---- */
mm_status mm__setup_allreduce_as_reduce_bcast(mm_op_args *a) { return mm__begin(a, mm__setup_allreduce); }
int mm__run_allreduce_as_reduce_bcast(const mm_op_args *a) {
    return mm_compose_allreduce_reduce_bcast(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->comm,
                                             a->rank);
}

/* the split of MPI_Reduce_scatter (no padding: the shares may differ by one element) */
mm_status mm__setup_allreduce_as_rs_allgatherv(mm_op_args *a) {
    if (mm__begin(a, mm__setup_allreduce)) return MM_E_FAILED;
    mm__mockup_state *s = MM__STATE(a);
    s->counts = malloc((size_t)a->nprocs * sizeof(int));
    s->displs = malloc((size_t)a->nprocs * sizeof(int));
    if (!s->counts || !s->displs)
        return mm__end(a, mm__setup_no_memory(a, "the counts and displacements", 2 * (int64_t)a->nprocs * (int64_t)sizeof(int)));
    mm_compose_split(a->count, a->nprocs, s->counts, s->displs);
    return mm__end(a, mm__zeroed(&s->tmp, s->counts[a->rank], a));
}
int mm__run_allreduce_as_rs_allgatherv(const mm_op_args *a) {
    const mm__mockup_state *s = MM__STATE(a);
    return mm_compose_allreduce_rs_allgatherv(a->sendbuf, a->recvbuf, a->datatype, a->reduce_op, a->comm, a->rank,
                                              s->counts, s->displs, s->tmp);
}

mm_status mm__setup_allreduce_as_rsb_allgather(mm_op_args *a) {
    if (mm__begin(a, mm__setup_allreduce)) return MM_E_FAILED;
    mm__mockup_state *s = MM__STATE(a);
    if (mm__pad_block(a)) return mm__end(a, 1);
    int64_t padded = (int64_t)s->block * a->nprocs;
    return mm__end(a, mm__grow(&a->sendbuf, a->count, padded, a) ||
                          mm__grow(&a->recvbuf, a->count, padded, a) ||
                          mm__zeroed(&s->tmp, s->block, a));
}
int mm__run_allreduce_as_rsb_allgather(const mm_op_args *a) {
    const mm__mockup_state *s = MM__STATE(a);
    int rc = MPI_Reduce_scatter_block(a->sendbuf, s->tmp, s->block, a->datatype, a->reduce_op, a->comm);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Allgather(s->tmp, s->block, a->datatype, a->recvbuf, s->block, a->datatype, a->comm);
}

/* ---- allgather ---- */
mm_status mm__setup_allgather_as_gather_bcast(mm_op_args *a) {
    if (mm__begin(a, mm__setup_allgather)) return MM_E_FAILED;
    return mm__end(a, mm__all_fit(a));
}
int mm__run_allgather_as_gather_bcast(const mm_op_args *a) {
    int rc = MPI_Gather(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype, 0, a->comm);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Bcast(a->recvbuf, a->count * a->nprocs, a->datatype, 0, a->comm);
}

mm_status mm__setup_allgather_as_alltoall(mm_op_args *a) {
    if (mm__begin(a, mm__setup_allgather)) return MM_E_FAILED;
    mm__mockup_state *s = MM__STATE(a);
    if (mm__all_fit(a) || mm__zeroed(&s->tmp, (int64_t)a->count * a->nprocs, a)) return mm__end(a, 1);
    for (int i = 0; i < a->nprocs; i++) /* the own block once per destination */
        memcpy(MM__AT(s->tmp, (int64_t)a->count * i, a), a->sendbuf, (size_t)a->count * (size_t)a->type_size);
    return 0;
}
int mm__run_allgather_as_alltoall(const mm_op_args *a) {
    return MPI_Alltoall(MM__STATE(a)->tmp, a->count, a->datatype, a->recvbuf, a->count, a->datatype, a->comm);
}

mm_status mm__setup_allgather_as_allreduce(mm_op_args *a) {
    if (mm__begin(a, mm__setup_allgather)) return MM_E_FAILED;
    return mm__end(a, mm__placed_blocks(a));
}
int mm__run_allgather_as_allreduce(const mm_op_args *a) {
    const mm__mockup_state *s = MM__STATE(a);
    return MPI_Allreduce(s->tmp, a->recvbuf, s->bytes, MPI_BYTE, MPI_BOR, a->comm);
}

/* ---- bcast: the one buffer (sendbuf) is the root's data and every other rank's result ---- */
mm_status mm__setup_bcast_as_scatter_allgather(mm_op_args *a) {
    if (mm__begin(a, mm__setup_bcast)) return MM_E_FAILED;
    mm__mockup_state *s = MM__STATE(a);
    if (mm__pad_block(a)) return mm__end(a, 1);
    return mm__end(a, mm__grow(&a->sendbuf, a->count, (int64_t)s->block * a->nprocs, a) ||
                          mm__zeroed(&s->tmp, s->block, a));
}
int mm__run_bcast_as_scatter_allgather(const mm_op_args *a) {
    const mm__mockup_state *s = MM__STATE(a);
    int rc = MPI_Scatter(a->sendbuf, s->block, a->datatype, s->tmp, s->block, a->datatype, a->root, a->comm);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Allgather(s->tmp, s->block, a->datatype, a->sendbuf, s->block, a->datatype, a->comm);
}

/* ---- gather ---- */
mm_status mm__setup_gather_as_allgather(mm_op_args *a) {
    if (mm__begin(a, mm__setup_gather)) return MM_E_FAILED;
    if (mm__all_fit(a)) return mm__end(a, 1);
    /* every rank receives: the non-roots need the root's buffer too */
    return mm__end(a, !a->recvbuf && mm__zeroed(&a->recvbuf, (int64_t)a->count * a->nprocs, a));
}
int mm__run_gather_as_allgather(const mm_op_args *a) {
    return MPI_Allgather(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype, a->comm);
}

mm_status mm__setup_gather_as_reduce(mm_op_args *a) {
    if (mm__begin(a, mm__setup_gather)) return MM_E_FAILED;
    return mm__end(a, mm__placed_blocks(a));
}
int mm__run_gather_as_reduce(const mm_op_args *a) {
    const mm__mockup_state *s = MM__STATE(a);
    return MPI_Reduce(s->tmp, a->recvbuf, s->bytes, MPI_BYTE, MPI_BOR, a->root, a->comm);
}

/* ---- reduce ---- */
mm_status mm__setup_reduce_as_allreduce(mm_op_args *a) {
    if (mm__begin(a, mm__setup_reduce)) return MM_E_FAILED;
    return mm__end(a, !a->recvbuf && mm__zeroed(&a->recvbuf, a->count, a));
}
int mm__run_reduce_as_allreduce(const mm_op_args *a) {
    return MPI_Allreduce(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->comm);
}

mm_status mm__setup_reduce_as_rsb_gather(mm_op_args *a) {
    if (mm__begin(a, mm__setup_reduce)) return MM_E_FAILED;
    mm__mockup_state *s = MM__STATE(a);
    if (mm__pad_block(a)) return mm__end(a, 1);
    int64_t padded = (int64_t)s->block * a->nprocs;
    return mm__end(a, mm__grow(&a->sendbuf, a->count, padded, a) ||
                          (a->recvbuf && mm__grow(&a->recvbuf, a->count, padded, a)) ||
                          mm__zeroed(&s->tmp, s->block, a));
}
int mm__run_reduce_as_rsb_gather(const mm_op_args *a) {
    const mm__mockup_state *s = MM__STATE(a);
    int rc = MPI_Reduce_scatter_block(a->sendbuf, s->tmp, s->block, a->datatype, a->reduce_op, a->comm);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Gather(s->tmp, s->block, a->datatype, a->recvbuf, s->block, a->datatype, a->root, a->comm);
}

/* ---- reduce_scatter: the original's recvcounts (count/nprocs, one more for the first
 * count % nprocs ranks) ---- */
mm_status mm__setup_rs_as_allreduce(mm_op_args *a) {
    if (mm__begin(a, mm__setup_reduce_scatter)) return MM_E_FAILED;
    mm__mockup_state *s = MM__STATE(a);
    for (int i = 0; i < a->rank; i++) s->offset += a->recvcounts[i];
    return mm__end(a, mm__zeroed(&s->tmp, a->count, a));
}
int mm__run_rs_as_allreduce(const mm_op_args *a) {
    const mm__mockup_state *s = MM__STATE(a);
    int rc = MPI_Allreduce(a->sendbuf, s->tmp, a->count, a->datatype, a->reduce_op, a->comm);
    /* the own share into the result buffer, as MPI_Reduce_scatter leaves it */
    memcpy(a->recvbuf, MM__AT(s->tmp, s->offset, a), (size_t)a->recvcounts[a->rank] * (size_t)a->type_size);
    return rc;
}

mm_status mm__setup_rs_as_reduce_scatterv(mm_op_args *a) {
    if (mm__begin(a, mm__setup_reduce_scatter)) return MM_E_FAILED;
    mm__mockup_state *s = MM__STATE(a);
    s->displs = malloc((size_t)a->nprocs * sizeof(int));
    if (!s->displs)
        return mm__end(a, mm__setup_no_memory(a, "the displacements", (int64_t)a->nprocs * (int64_t)sizeof(int)));
    for (int i = 0, at = 0; i < a->nprocs; at += a->recvcounts[i], i++) s->displs[i] = at;
    return mm__end(a, mm__zeroed(&s->tmp, a->count, a));
}
int mm__run_rs_as_reduce_scatterv(const mm_op_args *a) {
    const mm__mockup_state *s = MM__STATE(a);
    int rc = MPI_Reduce(a->sendbuf, s->tmp, a->count, a->datatype, a->reduce_op, 0, a->comm);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Scatterv(s->tmp, a->recvcounts, s->displs, a->datatype, a->recvbuf,
                        a->recvcounts[a->rank], a->datatype, 0, a->comm);
}

/* ---- reduce_scatter_block ---- */
mm_status mm__setup_rsb_as_reduce_scatter(mm_op_args *a) {
    if (mm__begin(a, mm__setup_reduce_scatter_block)) return MM_E_FAILED;
    return mm__end(a, mm__all_fit(a) || mm__zeroed(&MM__STATE(a)->tmp, (int64_t)a->count * a->nprocs, a));
}
int mm__run_rsb_as_reduce_scatter(const mm_op_args *a) {
    const mm__mockup_state *s = MM__STATE(a);
    int rc = MPI_Reduce(a->sendbuf, s->tmp, a->count * a->nprocs, a->datatype, a->reduce_op, 0, a->comm);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Scatter(s->tmp, a->count, a->datatype, a->recvbuf, a->count, a->datatype, 0, a->comm);
}

/* ---- scan: the exclusive prefix, then the own vector added locally (rank 0 has no prefix:
 * its result is its own vector) ---- */
mm_status mm__setup_scan_as_exscan_reduce_local(mm_op_args *a) { return mm__begin(a, mm__setup_scan); }
int mm__run_scan_as_exscan_reduce_local(const mm_op_args *a) {
    int rc = MPI_Exscan(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->comm);
    if (rc != MPI_SUCCESS) return rc;
    if (a->rank == 0) {
        memcpy(a->recvbuf, a->sendbuf, (size_t)a->count * (size_t)a->type_size);
        return MPI_SUCCESS;
    }
    return MPI_Reduce_local(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op);
}

/* ---- scatter: the root's nprocs blocks to everyone; each keeps its own ---- */
mm_status mm__setup_scatter_as_bcast(mm_op_args *a) {
    if (mm__begin(a, mm__setup_scatter)) return MM_E_FAILED;
    if (mm__all_fit(a)) return mm__end(a, 1);
    return mm__end(a, a->rank != a->root && mm__zeroed(&MM__STATE(a)->tmp, (int64_t)a->count * a->nprocs, a));
}
int mm__run_scatter_as_bcast(const mm_op_args *a) {
    void *all = a->rank == a->root ? a->sendbuf : MM__STATE(a)->tmp;
    int rc = MPI_Bcast(all, a->count * a->nprocs, a->datatype, a->root, a->comm);
    memcpy(a->recvbuf, MM__AT(all, (int64_t)a->count * a->rank, a), (size_t)a->count * (size_t)a->type_size);
    return rc;
}
