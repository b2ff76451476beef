/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_coll.c — setup, run and teardown of the MPI-3 blocking collectives in the op table.
 *
 * What: setup turns args->size into args->count (= size / type_size elements), allocates
 * every buffer the call needs (sized for nprocs blocks where the call gathers or scatters),
 * fills send buffers with a pattern and zeroes receive buffers (so that page faults happen
 * here, not in the first timed call), and prepares the counts/displacements of the v-variants.
 * run is the one MPI call and nothing else. teardown frees.
 * Size semantics (the pattern strings in ops_table.c say the same): size is the bytes of one
 * block = what each rank sends to each peer; for allreduce, bcast, reduce, scan and exscan the
 * whole vector; for reduce_scatter_block the result block of each rank; for reduce_scatter
 * the whole vector, split into per-rank counts that differ by at most one element (the first
 * count % nprocs ranks get one more). v-variants use the regular counts but place block i at
 * displacement i*(count+1) elements: a one-element gap after every block, so the layout is not
 * contiguous and a library cannot treat it as the regular collective.
 * Data: integers and floats are ±1 (sums stay within ±nprocs, products ±1: no overflow, no
 * denormals or infinities whose arithmetic would change the timing); bytes and chars are a
 * rank-dependent 7-bit pattern.
 * Cost: setup O(nprocs · size) memory and time, outside the timed region; run = the collective.
 * Paper: Hunold & Carpen-Amarie 2016 §3.2 (only the MPI call between the two timestamps);
 * SKaMPI (Reussner et al. 1998) for collectives parameterized by message size and root. */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

/* Validates the common arguments, clears the buffer pointers and sets args->count (0 when
 * the op ignores the size). */
static mm_status mm__begin(mm_op_args *a, int uses_size) {
    mm__args_clear(a);
    if (mm__args_check(a, uses_size) != 0) return MM_E_FAILED;
    if (!uses_size) return 0;
    int64_t count = a->size / a->type_size;
    if (count > INT_MAX)
        return mm__setup_failed(a, "size %lld is %lld elements, more than an MPI count holds (%d)",
                                (long long)a->size, (long long)count, INT_MAX);
    a->count = (int)count;
    return 0;
}

/* One send element of the pattern described in the header. */
static void mm__fill(void *buf, int64_t elems, const mm_op_args *a) {
    mm__datatype_kind kind = mm__datatype_kind_of(a->datatype);
    int64_t bytes = elems * a->type_size;
    if (kind == MM__KIND_INTEGER && a->type_size == (int)sizeof(int)) {
        int *v = buf;
        for (int64_t i = 0; i < elems; i++) v[i] = (i + a->rank) % 2 ? -1 : 1;
    } else if (kind == MM__KIND_INTEGER && a->type_size == (int)sizeof(long)) {
        long *v = buf;
        for (int64_t i = 0; i < elems; i++) v[i] = (i + a->rank) % 2 ? -1 : 1;
    } else if (kind == MM__KIND_FLOAT && a->type_size == (int)sizeof(float)) {
        float *v = buf;
        for (int64_t i = 0; i < elems; i++) v[i] = (i + a->rank) % 2 ? -1.0f : 1.0f;
    } else if (kind == MM__KIND_FLOAT && a->type_size == (int)sizeof(double)) {
        double *v = buf;
        for (int64_t i = 0; i < elems; i++) v[i] = (i + a->rank) % 2 ? -1.0 : 1.0;
    } else {
        unsigned char *v = buf;
        for (int64_t i = 0; i < bytes; i++)
            v[i] = (unsigned char)((i * 31 + a->rank * 7 + 1) & 0x7f);
    }
}

/* Allocates `elems` elements (at least one, so the pointer is never NULL and send and receive
 * buffers never alias), filled with the pattern or zeroed. */
static mm_status mm__buffer(void **out, int64_t elems, mm_op_args *a, int fill) {
    int64_t n = elems > 0 ? elems : 1;
    const char *what = fill ? "the send buffer" : "the receive buffer";
    if (n > (int64_t)(SIZE_MAX / 2) / a->type_size)
        return mm__setup_failed(a, "cannot allocate %s: %lld elements of %d bytes exceed the "
                                "address space", what, (long long)n, a->type_size);
    void *buf = mm__buffer_alloc((size_t)(n * a->type_size));
    if (!buf) return mm__setup_no_memory(a, what, n * a->type_size);
    if (fill)
        mm__fill(buf, n, a);
    else
        memset(buf, 0, (size_t)(n * a->type_size));
    *out = buf;
    return 0;
}

/* counts[i] = count, displs[i] = i*(count+1): the gapped layout of the v-variants. The buffer
 * they describe holds nprocs*(count+1) elements, which must fit MPI's int displacements. */
static mm_status mm__gapped_layout(int **counts, int **displs, mm_op_args *a) {
    int64_t stride = (int64_t)a->count + 1;
    if (stride * a->nprocs > INT_MAX)
        return mm__setup_failed(a, "%d blocks of %lld elements with their gaps exceed an MPI "
                                "displacement (%d)", a->nprocs, (long long)stride, INT_MAX);
    *counts = malloc((size_t)a->nprocs * sizeof(int));
    *displs = malloc((size_t)a->nprocs * sizeof(int));
    if (!*counts || !*displs)
        return mm__setup_no_memory(a, "the counts and displacements", 2 * (int64_t)a->nprocs * (int64_t)sizeof(int));
    for (int i = 0; i < a->nprocs; i++) {
        (*counts)[i] = a->count;
        (*displs)[i] = (int)(stride * i);
    }
    return 0;
}

static int64_t mm__gapped_elems(const mm_op_args *a) { return ((int64_t)a->count + 1) * a->nprocs; }
static int64_t mm__all_blocks(const mm_op_args *a) { return (int64_t)a->count * a->nprocs; }

void mm__coll_teardown(mm_op_args *a) {
    free(a->sendbuf);
    free(a->recvbuf);
    free(a->sendcounts);
    free(a->sdispls);
    free(a->recvcounts);
    free(a->rdispls);
    a->sendbuf = a->recvbuf = NULL;
    a->sendcounts = a->sdispls = a->recvcounts = a->rdispls = NULL;
}

/* Ends a setup: on failure frees what was allocated so far. */
static mm_status mm__end(mm_op_args *a, int failed) {
    if (failed) mm__coll_teardown(a);
    return failed ? MM_E_FAILED : 0;
}

/* ---- allgather / allgatherv: count from every rank to every rank ---- */
mm_status mm__setup_allgather(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    return mm__end(a, mm__buffer(&a->sendbuf, a->count, a, 1) ||
                          mm__buffer(&a->recvbuf, mm__all_blocks(a), a, 0));
}
int mm__run_allgather(const mm_op_args *a) {
    return MPI_Allgather(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype,
                         a->comm);
}

mm_status mm__setup_allgatherv(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    return mm__end(a, mm__gapped_layout(&a->recvcounts, &a->rdispls, a) ||
                          mm__buffer(&a->sendbuf, a->count, a, 1) ||
                          mm__buffer(&a->recvbuf, mm__gapped_elems(a), a, 0));
}
int mm__run_allgatherv(const mm_op_args *a) {
    return MPI_Allgatherv(a->sendbuf, a->count, a->datatype, a->recvbuf, a->recvcounts,
                          a->rdispls, a->datatype, a->comm);
}

/* ---- allreduce / scan / exscan: a vector of count elements, reduced ---- */
static mm_status mm__setup_vector_pair(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    return mm__end(a, mm__buffer(&a->sendbuf, a->count, a, 1) ||
                          mm__buffer(&a->recvbuf, a->count, a, 0));
}

mm_status mm__setup_allreduce(mm_op_args *a) { return mm__setup_vector_pair(a); }
int mm__run_allreduce(const mm_op_args *a) {
    return MPI_Allreduce(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->comm);
}

mm_status mm__setup_scan(mm_op_args *a) { return mm__setup_vector_pair(a); }
int mm__run_scan(const mm_op_args *a) {
    return MPI_Scan(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->comm);
}

mm_status mm__setup_exscan(mm_op_args *a) { return mm__setup_vector_pair(a); }
int mm__run_exscan(const mm_op_args *a) {
    return MPI_Exscan(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->comm);
}

/* ---- alltoall / alltoallv: a distinct block from every rank to every rank ---- */
mm_status mm__setup_alltoall(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    return mm__end(a, mm__buffer(&a->sendbuf, mm__all_blocks(a), a, 1) ||
                          mm__buffer(&a->recvbuf, mm__all_blocks(a), a, 0));
}
int mm__run_alltoall(const mm_op_args *a) {
    return MPI_Alltoall(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype,
                        a->comm);
}

mm_status mm__setup_alltoallv(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    return mm__end(a, mm__gapped_layout(&a->sendcounts, &a->sdispls, a) ||
                          mm__gapped_layout(&a->recvcounts, &a->rdispls, a) ||
                          mm__buffer(&a->sendbuf, mm__gapped_elems(a), a, 1) ||
                          mm__buffer(&a->recvbuf, mm__gapped_elems(a), a, 0));
}
int mm__run_alltoallv(const mm_op_args *a) {
    return MPI_Alltoallv(a->sendbuf, a->sendcounts, a->sdispls, a->datatype, a->recvbuf,
                         a->recvcounts, a->rdispls, a->datatype, a->comm);
}

/* ---- barrier: no data; size is ignored ---- */
mm_status mm__setup_barrier(mm_op_args *a) { return mm__begin(a, 0); }
int mm__run_barrier(const mm_op_args *a) { return MPI_Barrier(a->comm); }

/* ---- bcast: count elements from root to all (sendbuf is the buffer on every rank) ---- */
mm_status mm__setup_bcast(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    return mm__end(a, mm__buffer(&a->sendbuf, a->count, a, 1));
}
int mm__run_bcast(const mm_op_args *a) {
    return MPI_Bcast(a->sendbuf, a->count, a->datatype, a->root, a->comm);
}

/* ---- gather / gatherv: count from every rank to root ---- */
mm_status mm__setup_gather(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    int is_root = a->rank == a->root;
    return mm__end(a, mm__buffer(&a->sendbuf, a->count, a, 1) ||
                          (is_root && mm__buffer(&a->recvbuf, mm__all_blocks(a), a, 0)));
}
int mm__run_gather(const mm_op_args *a) {
    return MPI_Gather(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype,
                      a->root, a->comm);
}

mm_status mm__setup_gatherv(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    int is_root = a->rank == a->root;
    return mm__end(a, mm__buffer(&a->sendbuf, a->count, a, 1) ||
                          (is_root && (mm__gapped_layout(&a->recvcounts, &a->rdispls, a) ||
                                       mm__buffer(&a->recvbuf, mm__gapped_elems(a), a, 0))));
}
int mm__run_gatherv(const mm_op_args *a) {
    return MPI_Gatherv(a->sendbuf, a->count, a->datatype, a->recvbuf, a->recvcounts, a->rdispls,
                       a->datatype, a->root, a->comm);
}

/* ---- reduce: a vector of count elements reduced to root ---- */
mm_status mm__setup_reduce(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    int is_root = a->rank == a->root;
    return mm__end(a, mm__buffer(&a->sendbuf, a->count, a, 1) ||
                          (is_root && mm__buffer(&a->recvbuf, a->count, a, 0)));
}
int mm__run_reduce(const mm_op_args *a) {
    return MPI_Reduce(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->root,
                      a->comm);
}

/* ---- reduce_scatter: a vector of count elements reduced, then split as evenly as possible:
 * rank i gets count/nprocs elements, plus one if i < count % nprocs ---- */
mm_status mm__setup_reduce_scatter(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    a->recvcounts = malloc((size_t)a->nprocs * sizeof(int));
    if (!a->recvcounts)
        return mm__end(a, mm__setup_no_memory(a, "the receive counts", (int64_t)a->nprocs * (int64_t)sizeof(int)));
    int base = a->count / a->nprocs, extra = a->count % a->nprocs;
    for (int i = 0; i < a->nprocs; i++) a->recvcounts[i] = base + (i < extra);
    return mm__end(a, mm__buffer(&a->sendbuf, a->count, a, 1) ||
                          mm__buffer(&a->recvbuf, a->recvcounts[a->rank], a, 0));
}
int mm__run_reduce_scatter(const mm_op_args *a) {
    return MPI_Reduce_scatter(a->sendbuf, a->recvbuf, a->recvcounts, a->datatype, a->reduce_op,
                              a->comm);
}

/* ---- reduce_scatter_block: nprocs blocks of count reduced; rank i gets block i ---- */
mm_status mm__setup_reduce_scatter_block(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    return mm__end(a, mm__buffer(&a->sendbuf, mm__all_blocks(a), a, 1) ||
                          mm__buffer(&a->recvbuf, a->count, a, 0));
}
int mm__run_reduce_scatter_block(const mm_op_args *a) {
    return MPI_Reduce_scatter_block(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op,
                                    a->comm);
}

/* ---- scatter / scatterv: a distinct block of count from root to every rank ---- */
mm_status mm__setup_scatter(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    int is_root = a->rank == a->root;
    return mm__end(a, (is_root && mm__buffer(&a->sendbuf, mm__all_blocks(a), a, 1)) ||
                          mm__buffer(&a->recvbuf, a->count, a, 0));
}
int mm__run_scatter(const mm_op_args *a) {
    return MPI_Scatter(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype,
                       a->root, a->comm);
}

mm_status mm__setup_scatterv(mm_op_args *a) {
    if (mm__begin(a, 1)) return MM_E_FAILED;
    int is_root = a->rank == a->root;
    return mm__end(a, (is_root && (mm__gapped_layout(&a->sendcounts, &a->sdispls, a) ||
                                   mm__buffer(&a->sendbuf, mm__gapped_elems(a), a, 1))) ||
                          mm__buffer(&a->recvbuf, a->count, a, 0));
}
int mm__run_scatterv(const mm_op_args *a) {
    return MPI_Scatterv(a->sendbuf, a->sendcounts, a->sdispls, a->datatype, a->recvbuf, a->count,
                        a->datatype, a->root, a->comm);
}
