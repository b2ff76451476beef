/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_neighbor.c — the neighborhood collectives (MPI-3.1 §7.6): MPI_Neighbor_allgather,
 * MPI_Neighbor_alltoall, MPI_Neighbor_alltoallv and their nonblocking forms, on a periodic
 * Cartesian topology or on the distributed graph of --graph-file.
 *
 * What: setup makes the topology's communicator, without reordering (rank r is the same process
 *   as in the launch): with --graph-file MPI_Dist_graph_create_adjacent over the file's graph
 *   (ops_graph.c: in-neighbours in rank order, out-neighbours in the file's order); otherwise
 *   MPI_Cart_create, periodic in every dimension, with the dimensions of --cart-dims or
 *   MPI_Dims_create's two-dimensional choice, each rank then having 2 x ndims neighbours (a
 *   dimension of extent 1 or 2 makes a rank its own or its neighbour's neighbour twice: MPI counts
 *   them as neighbours all the same). allgather: every rank sends its block of size bytes to
 *   every out-neighbour; alltoall and alltoallv: a distinct block to each (alltoallv: block i at
 *   displacement i*(count+1) elements on both sides, as alltoallv). The nonblocking rows are
 *   timed as the other nonblocking collectives (ops_nbc.c, NBCBench).
 * Check after the test: every rank's send blocks hold a pattern of its rank and the byte's
 *   place; each received block must hold its source's block. Skipped for alltoall(v) on a
 *   Cartesian dimension of extent 1 or 2: there one rank is the neighbour on both sides, and
 *   which of its two blocks lands where is left to the library (MPI-3.1 §7.6, advice to users).
 * Why: stencil codes exchange with a fixed set of neighbours; the neighborhood collectives let
 *   the library plan that exchange, so they are measured beside the collectives.
 * Cost: a block of size bytes per edge in and out per rank; the communicator is made once per
 *   test, outside the timed region. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

typedef struct mm__neighbor {
    MPI_Comm topo;
    int indegree, outdegree;
    int all_to_all, v, stride;
    int checkable;     /* the check after the test can say what each block must hold */
    int *sources;      /* in-neighbour i (the sender of receive block i) */
    int *source_block; /* which of its send blocks it sends here */
} mm__neighbor;

static MPI_Comm mm__topo(const mm_op_args *a) { return ((const mm__neighbor *)a->state)->topo; }

/* Byte k of rank r's send buffer: a pattern of both, so that a block from the wrong rank or the
 * wrong place shows. */
static unsigned char mm__pattern(int rank, size_t k) { return (unsigned char)(rank * 31 + k * 13 + 5); }

/* The graph's communicator and this rank's neighbours: 0, or MM_E_FAILED with args->error. */
static mm_status mm__make_graph(mm_op_args *a, mm__neighbor *n) {
    mm__graph_adjacency adj;
    if (mm__graph_neighbors(a->graph_text, a->rank, &adj, a->error, sizeof a->error) != 0) return MM_E_FAILED;
    /* equal weights rather than MPI_UNWEIGHTED: Open MPI's MPI_UNWEIGHTED is a sentinel address
     * that GCC's bounds checks take for an empty array */
    int most = adj.indegree > adj.outdegree ? adj.indegree : adj.outdegree;
    int *weights = malloc((size_t)(most + 1) * sizeof(int));
    int rc = weights ? 0 : mm__setup_no_memory(a, "the graph's weights", (int64_t)(most + 1) * (int64_t)sizeof(int));
    for (int i = 0; weights && i <= most; i++) weights[i] = 1;
    if (rc == 0 &&
        MM__SETUP_MPI(a, MPI_Dist_graph_create_adjacent(a->comm, adj.indegree, adj.sources, weights,
                                                        adj.outdegree, adj.destinations, weights,
                                                        MPI_INFO_NULL, 0, &n->topo)) != MPI_SUCCESS)
        rc = MM_E_FAILED;
    free(weights);
    n->indegree = adj.indegree;
    n->outdegree = adj.outdegree;
    n->sources = adj.sources;
    n->source_block = adj.source_block;
    free(adj.destinations);
    n->checkable = 1;
    return rc;
}

/* The torus's communicator and this rank's neighbours: 0, or MM_E_FAILED with args->error. */
static mm_status mm__make_cart(mm_op_args *a, mm__neighbor *n) {
    int ndims = a->cart_ndims > 0 ? a->cart_ndims : 2;
    int dims[MM_CART_MAX_DIMS] = {0}, periods[MM_CART_MAX_DIMS];
    for (int d = 0; d < ndims; d++) {
        dims[d] = a->cart_ndims > 0 ? a->cart_dims[d] : 0;
        periods[d] = 1;
    }
    int rc = a->cart_ndims > 0 ? MPI_SUCCESS : MM__SETUP_MPI(a, MPI_Dims_create(a->nprocs, ndims, dims));
    if (rc == MPI_SUCCESS) rc = MM__SETUP_MPI(a, MPI_Cart_create(a->comm, ndims, dims, periods, 0, &n->topo));
    if (rc != MPI_SUCCESS) return MM_E_FAILED;
    if (n->topo == MPI_COMM_NULL)
        return mm__setup_failed(a, "rank %d is outside the %d-dimensional torus of --cart-dims", a->rank, ndims);
    n->indegree = n->outdegree = 2 * ndims;
    n->sources = malloc((size_t)n->indegree * sizeof(int));
    n->source_block = malloc((size_t)n->indegree * sizeof(int));
    if (!n->sources || !n->source_block)
        return mm__setup_no_memory(a, "the torus's neighbours", 2 * (int64_t)n->indegree * (int64_t)sizeof(int));
    /* receive block 2d comes from the rank below in dimension d, which sends it its block 2d+1
     * (its neighbour above); block 2d+1 from the rank above, its block 2d */
    n->checkable = 1;
    for (int d = 0; d < ndims && rc == MPI_SUCCESS; d++) {
        int below = MPI_PROC_NULL, above = MPI_PROC_NULL;
        rc = MM__SETUP_MPI(a, MPI_Cart_shift(n->topo, d, 1, &below, &above));
        n->sources[2 * d] = below;
        n->source_block[2 * d] = 2 * d + 1;
        n->sources[2 * d + 1] = above;
        n->source_block[2 * d + 1] = 2 * d;
        if (dims[d] <= 2 && n->all_to_all) n->checkable = 0;
    }
    return rc == MPI_SUCCESS ? 0 : MM_E_FAILED;
}

/* Bytes of the send and receive buffers: `outdegree` blocks to send (allgather: one), one per
 * in-neighbour to receive, each of stride elements; one element more on each. */
static void mm__buffer_bytes(int all_to_all, int nin, int nout, int64_t stride, int64_t elem, double *send,
                             double *recv) {
    *send = (double)(all_to_all ? nout : 1) * (double)stride * (double)elem + (double)elem;
    *recv = (double)nin * (double)stride * (double)elem + (double)elem;
}

double mm__neighbor_setup_bytes(const mm_op *op, const char *graph_text, int cart_ndims, int64_t size,
                                int type_size, int rank, int in_max, int out_max) {
    /* as mm__setup: the rank's degrees on the graph (the most of any rank where the rank is not
     * in it), 2 x ndims on the torus; the v-variants' one-element gaps; the check after the
     * test reads the received blocks in place */
    int v = op->setup == mm__setup_neighbor_alltoallv || op->setup == mm__setup_ineighbor_alltoallv;
    int all_to_all = v || op->setup == mm__setup_neighbor_alltoall || op->setup == mm__setup_ineighbor_alltoall;
    int nin = 2 * (cart_ndims > 0 ? cart_ndims : 2), nout = nin;
    mm__graph_adjacency adj;
    char why[256]; /* unread: a rank the graph cannot place counts as the most of any rank (below) */
    if (graph_text && mm__graph_neighbors(graph_text, rank, &adj, why, sizeof why) == 0) {
        nin = adj.indegree;
        nout = adj.outdegree;
        mm__graph_adjacency_free(&adj);
    } else if (graph_text) {
        nin = in_max;
        nout = out_max;
    }
    int64_t elem = type_size > 0 ? type_size : 1, count = size / elem;
    double send, recv;
    mm__buffer_bytes(all_to_all, nin, nout, v ? count + 1 : count, elem, &send, &recv);
    return send + recv;
}

/* The topology's communicator and the buffers: send `outdegree` blocks (allgather: one),
 * receive one per in-neighbour; v: the counts and i*(count+1) displacements of alltoallv. */
static mm_status mm__setup(mm_op_args *a, int all_to_all, int v) {
    mm__args_clear(a);
    if (mm__args_check(a, 1) != 0) return MM_E_FAILED;
    mm__neighbor *n = calloc(1, sizeof *n);
    if (!n) return mm__setup_no_memory(a, "the neighbourhood's state", (int64_t)sizeof *n);
    n->topo = MPI_COMM_NULL;
    n->all_to_all = all_to_all;
    n->v = v;
    a->state = n;
    a->count = (int)(a->size / a->type_size);
    if ((a->graph_text ? mm__make_graph(a, n) : mm__make_cart(a, n)) != 0) return MM_E_FAILED;
    int nin = n->indegree, nout = n->outdegree;
    n->stride = v ? a->count + 1 : a->count;
    size_t elem = (size_t)a->type_size;
    double send_bytes, recv_bytes;
    mm__buffer_bytes(all_to_all, nin, nout, n->stride, (int64_t)elem, &send_bytes, &recv_bytes);
    size_t send = (size_t)send_bytes, recv = (size_t)recv_bytes;
    a->sendbuf = mm__buffer_alloc(send);
    a->recvbuf = mm__buffer_calloc(1, recv);
    if (!a->sendbuf || !a->recvbuf)
        return mm__setup_no_memory(a, "the send and receive buffers", (int64_t)(send + recv));
    for (size_t i = 0; i < send; i++) ((unsigned char *)a->sendbuf)[i] = mm__pattern(a->rank, i);
    if (!v) return 0;
    a->sendcounts = malloc((size_t)(nout + 1) * sizeof(int));
    a->sdispls = malloc((size_t)(nout + 1) * sizeof(int));
    a->recvcounts = malloc((size_t)(nin + 1) * sizeof(int));
    a->rdispls = malloc((size_t)(nin + 1) * sizeof(int));
    if (!a->sendcounts || !a->sdispls || !a->recvcounts || !a->rdispls)
        return mm__setup_no_memory(a, "the counts and displacements", 2 * (int64_t)(nin + nout + 2) * (int64_t)sizeof(int));
    for (int i = 0; i < nout; i++) {
        a->sendcounts[i] = a->count;
        a->sdispls[i] = i * n->stride;
    }
    for (int i = 0; i < nin; i++) {
        a->recvcounts[i] = a->count;
        a->rdispls[i] = i * n->stride;
    }
    return 0;
}

mm_status mm__setup_neighbor_allgather(mm_op_args *a) { return mm__setup(a, 0, 0); }
mm_status mm__setup_neighbor_alltoall(mm_op_args *a) { return mm__setup(a, 1, 0); }
mm_status mm__setup_neighbor_alltoallv(mm_op_args *a) { return mm__setup(a, 1, 1); }

int mm__run_neighbor_allgather(const mm_op_args *a) {
    return MPI_Neighbor_allgather(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count,
                                  a->datatype, mm__topo(a));
}
int mm__run_neighbor_alltoall(const mm_op_args *a) {
    return MPI_Neighbor_alltoall(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count,
                                 a->datatype, mm__topo(a));
}
int mm__run_neighbor_alltoallv(const mm_op_args *a) {
    return MPI_Neighbor_alltoallv(a->sendbuf, a->sendcounts, a->sdispls, a->datatype, a->recvbuf,
                                  a->recvcounts, a->rdispls, a->datatype, mm__topo(a));
}

static int mm__post_ineighbor_allgather(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ineighbor_allgather(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count,
                                   a->datatype, mm__topo(a), r);
}
static int mm__post_ineighbor_alltoall(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ineighbor_alltoall(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count,
                                  a->datatype, mm__topo(a), r);
}
static int mm__post_ineighbor_alltoallv(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ineighbor_alltoallv(a->sendbuf, a->sendcounts, a->sdispls, a->datatype, a->recvbuf,
                                   a->recvcounts, a->rdispls, a->datatype, mm__topo(a), r);
}

MM__NBC_SETUP(neighbor_allgather)
MM__NBC_SETUP(neighbor_alltoall)
MM__NBC_SETUP(neighbor_alltoallv)

mm_status mm__verify_neighbor(mm_op_args *a, char *why, size_t why_len) {
    const mm__neighbor *n = a->state;
    if (!n || !n->checkable) return 0;
    size_t elem = (size_t)a->type_size, block = (size_t)a->count * elem;
    for (int i = 0; i < n->indegree; i++) {
        int src = n->sources[i];
        if (src == MPI_PROC_NULL) continue;
        const unsigned char *got = (const unsigned char *)a->recvbuf + (size_t)i * (size_t)n->stride * elem;
        size_t from = n->all_to_all ? (size_t)n->source_block[i] * (size_t)n->stride * elem : 0;
        for (size_t k = 0; k < block; k++) {
            unsigned char want = mm__pattern(src, from + k);
            if (got[k] == want) continue;
            snprintf(why, why_len, "wrong data after the test: receive block %d (from rank %d, its send "
                     "block %d) holds %u at byte %zu where %u was expected (%s topology)", i, src,
                     n->all_to_all ? n->source_block[i] : 0, (unsigned)got[k], k, (unsigned)want,
                     a->graph_text ? "--graph-file" : "Cartesian");
            return MM_E_FAILED;
        }
    }
    return 0;
}

mm_status mm__inject_neighbor(mm_op_args *a) {
    if (!a->state) return 0; /* the parser's probe: the op can be injected */
    if (a->rank == 0 && a->count > 0) ((unsigned char *)a->sendbuf)[0] ^= 1u;
    return 0;
}

void mm__teardown_neighbor(mm_op_args *a) {
    mm__neighbor *n = a->state;
    if (n && n->topo != MPI_COMM_NULL) MPI_Comm_free(&n->topo);
    if (n) {
        free(n->sources);
        free(n->source_block);
    }
    free(a->state);
    a->state = NULL;
    if (a->nbc) a->nbc->post = NULL;
    mm__coll_teardown(a);
}
