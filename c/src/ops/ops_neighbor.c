/* ops_neighbor.c — the neighborhood collectives (MPI-3.1 §7.6): MPI_Neighbor_allgather,
 * MPI_Neighbor_alltoall, MPI_Neighbor_alltoallv and their nonblocking forms, on a periodic
 * Cartesian topology.
 *
 * What: setup makes the Cartesian communicator (MPI_Cart_create, periodic in every dimension,
 *   no reordering, so that rank r is the same process as in the launch) with the dimensions of
 *   --cart-dims, or MPI_Dims_create's two-dimensional choice; each rank then has 2 x ndims
 *   neighbours (a dimension of extent 1 or 2 makes a rank its own or its neighbour's neighbour
 *   twice: MPI counts them as neighbours all the same). allgather: every rank sends its block
 *   of size bytes to every neighbour; alltoall and alltoallv: a distinct block to each
 *   (alltoallv: block i at displacement i*(count+1) elements on both sides, as alltoallv). The
 *   nonblocking rows are timed as the other nonblocking collectives (ops_nbc.c, NBCBench).
 * Why: stencil codes exchange with a fixed set of neighbours; the neighborhood collectives let
 *   the library plan that exchange, and the issue asks to measure them beside the collectives.
 * Cost: 2 x ndims messages of size bytes in and out per rank; the communicator is made once per
 *   test, outside the timed region. */
#include <stdlib.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"

typedef struct mm__neighbor {
    MPI_Comm cart;
    int nneighbors;
} mm__neighbor;

static MPI_Comm mm__cart(const mm_op_args *a) { return ((const mm__neighbor *)a->state)->cart; }

/* The Cartesian communicator and the buffers: send `send_blocks` blocks, receive one per
 * neighbour; v: the counts and i*(count+1) displacements of alltoallv. */
static int mm__setup(mm_op_args *a, int all_to_all, int v) {
    mm__args_clear(a);
    if (!mm__args_valid(a)) return -1;
    mm__neighbor *n = calloc(1, sizeof *n);
    if (!n) return -1;
    n->cart = MPI_COMM_NULL;
    a->state = n;
    if (a->type_size <= 0 || a->size < 0 || a->size % a->type_size != 0) return -1;
    a->count = (int)(a->size / a->type_size);
    int ndims = a->cart_ndims > 0 ? a->cart_ndims : 2;
    int dims[MM_CART_MAX_DIMS] = {0}, periods[MM_CART_MAX_DIMS];
    for (int d = 0; d < ndims; d++) {
        dims[d] = a->cart_ndims > 0 ? a->cart_dims[d] : 0;
        periods[d] = 1;
    }
    int rc = a->cart_ndims > 0 ? MPI_SUCCESS : MPI_Dims_create(a->nprocs, ndims, dims);
    if (rc == MPI_SUCCESS) rc = MPI_Cart_create(a->comm, ndims, dims, periods, 0, &n->cart);
    if (rc != MPI_SUCCESS || n->cart == MPI_COMM_NULL) return -1;
    n->nneighbors = 2 * ndims;
    int nn = n->nneighbors, stride = v ? a->count + 1 : a->count;
    size_t elem = (size_t)a->type_size;
    size_t send = (size_t)(all_to_all ? nn : 1) * (size_t)stride * elem + elem;
    size_t recv = (size_t)nn * (size_t)stride * elem + elem;
    a->sendbuf = malloc(send);
    a->recvbuf = calloc(1, recv);
    if (!a->sendbuf || !a->recvbuf) return -1;
    for (size_t i = 0; i < send; i++) ((unsigned char *)a->sendbuf)[i] = (unsigned char)(i * 13 + 5);
    if (!v) return 0;
    a->sendcounts = malloc((size_t)nn * sizeof(int));
    a->sdispls = malloc((size_t)nn * sizeof(int));
    a->recvcounts = malloc((size_t)nn * sizeof(int));
    a->rdispls = malloc((size_t)nn * sizeof(int));
    if (!a->sendcounts || !a->sdispls || !a->recvcounts || !a->rdispls) return -1;
    for (int i = 0; i < nn; i++) {
        a->sendcounts[i] = a->recvcounts[i] = a->count;
        a->sdispls[i] = a->rdispls[i] = i * stride;
    }
    return 0;
}

int mm__setup_neighbor_allgather(mm_op_args *a) { return mm__setup(a, 0, 0); }
int mm__setup_neighbor_alltoall(mm_op_args *a) { return mm__setup(a, 1, 0); }
int mm__setup_neighbor_alltoallv(mm_op_args *a) { return mm__setup(a, 1, 1); }

int mm__run_neighbor_allgather(const mm_op_args *a) {
    return MPI_Neighbor_allgather(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count,
                                  a->datatype, mm__cart(a));
}
int mm__run_neighbor_alltoall(const mm_op_args *a) {
    return MPI_Neighbor_alltoall(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count,
                                 a->datatype, mm__cart(a));
}
int mm__run_neighbor_alltoallv(const mm_op_args *a) {
    return MPI_Neighbor_alltoallv(a->sendbuf, a->sendcounts, a->sdispls, a->datatype, a->recvbuf,
                                  a->recvcounts, a->rdispls, a->datatype, mm__cart(a));
}

static int mm__post_ineighbor_allgather(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ineighbor_allgather(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count,
                                   a->datatype, mm__cart(a), r);
}
static int mm__post_ineighbor_alltoall(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ineighbor_alltoall(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count,
                                  a->datatype, mm__cart(a), r);
}
static int mm__post_ineighbor_alltoallv(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ineighbor_alltoallv(a->sendbuf, a->sendcounts, a->sdispls, a->datatype, a->recvbuf,
                                   a->recvcounts, a->rdispls, a->datatype, mm__cart(a), r);
}

MM__NBC_SETUP(neighbor_allgather)
MM__NBC_SETUP(neighbor_alltoall)
MM__NBC_SETUP(neighbor_alltoallv)

void mm__teardown_neighbor(mm_op_args *a) {
    mm__neighbor *n = a->state;
    if (n && n->cart != MPI_COMM_NULL) MPI_Comm_free(&n->cart);
    free(a->state);
    a->state = NULL;
    if (a->nbc) a->nbc->post = NULL;
    mm__coll_teardown(a);
}
