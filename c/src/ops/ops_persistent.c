/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_persistent.c — MPI-4 persistent collectives (MPI-4.0 §6.13): the request is made once by
 * MPI_<Op>_init, then every timed call is MPI_Start + MPI_Wait on it; and the init itself as its
 * own timed row.
 *
 * What: persistent-<op> has the buffers, size and constraints of its blocking twin <op>
 *   (ops_coll.c); its setup adds MPI_<Op>_init (outside the timed region) and its teardown
 *   MPI_Request_free. persistent-<op>-init times MPI_<Op>_init alone; the request is freed after
 *   the end timestamp (the `after` hook), so that the init cost is reported separately from the
 *   use.
 * Why: a persistent collective lets the library choose its algorithm and allocate once; whether
 *   MPI_Start + MPI_Wait beats the blocking call, and what the planning costs, is measured
 *   beside the blocking twin.
 * Availability: the MPI library must declare the MPI-4 calls (MPICH 4 does, Open MPI 4.1 does
 *   not); CMake checks at build time (MM_HAVE_PERSISTENT_COLL). Without them the rows stay in
 *   the table, listed as unavailable, and a launch asking for one is refused (exit 2).
 * Cost: the blocking twin's messages per timed call. */
#include <stdio.h>
#include <stdlib.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

typedef int (*mm__init_fn)(const mm_op_args *a, MPI_Request *req);

/* What a persistent row keeps: the request and the init that makes it. */
typedef struct mm__persistent {
    MPI_Request req;
    mm__init_fn init;
} mm__persistent;

int mm_persistent_available(char *why, size_t why_len) {
#ifdef MM_HAVE_PERSISTENT_COLL
    (void)why;
    (void)why_len;
    return 1;
#else
    int major = 0, minor = 0;
    MPI_Get_version(&major, &minor);
    snprintf(why, why_len, "this MPI library (MPI %d.%d) has no MPI-4 persistent collectives "
             "(MPI_Allreduce_init ...; MPICH 4 has them, Open MPI 4.1 does not)", major, minor);
    return 0;
#endif
}

#ifdef MM_HAVE_PERSISTENT_COLL
static int mm__init_allreduce(const mm_op_args *a, MPI_Request *r) {
    return MPI_Allreduce_init(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->comm,
                              MPI_INFO_NULL, r);
}
static int mm__init_allgather(const mm_op_args *a, MPI_Request *r) {
    return MPI_Allgather_init(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype,
                              a->comm, MPI_INFO_NULL, r);
}
static int mm__init_alltoall(const mm_op_args *a, MPI_Request *r) {
    return MPI_Alltoall_init(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype,
                             a->comm, MPI_INFO_NULL, r);
}
static int mm__init_barrier(const mm_op_args *a, MPI_Request *r) {
    return MPI_Barrier_init(a->comm, MPI_INFO_NULL, r);
}
static int mm__init_bcast(const mm_op_args *a, MPI_Request *r) {
    return MPI_Bcast_init(a->sendbuf, a->count, a->datatype, a->root, a->comm, MPI_INFO_NULL, r);
}
static int mm__init_reduce(const mm_op_args *a, MPI_Request *r) {
    return MPI_Reduce_init(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->root,
                           a->comm, MPI_INFO_NULL, r);
}
#define MM__INIT(op) mm__init_##op
#else
#define MM__INIT(op) NULL
#endif

/* The twin's buffers, then the state; with `made`, the request too (outside the timed region):
 * init_call names it when it fails. */
static mm_status mm__setup(mm_op_args *a, mm_status (*twin_setup)(mm_op_args *), mm__init_fn init, const char *init_call,
                           int made) {
    if (twin_setup(a) != 0) return MM_E_FAILED;
    /* the option checks refuse these rows where the library has no persistent collectives */
    if (!init) return mm__setup_failed(a, "this MPI library has no persistent collectives (MPI-4)");
    mm__persistent *p = calloc(1, sizeof *p);
    if (!p) return mm__setup_no_memory(a, "the request's state", (int64_t)sizeof *p);
    p->req = MPI_REQUEST_NULL;
    p->init = init;
    a->state = p;
    if (made && mm__setup_mpi_check(a, init(a, &p->req), init_call) != MPI_SUCCESS) return MM_E_FAILED;
    return 0;
}

#define MM__PERSISTENT_SETUPS(op, call)                                                          \
    mm_status mm__setup_persistent_##op(mm_op_args *a) {                                         \
        return mm__setup(a, mm__setup_##op, MM__INIT(op), call, 1);                              \
    }                                                                                            \
    mm_status mm__setup_persistent_##op##_init(mm_op_args *a) {                                  \
        return mm__setup(a, mm__setup_##op, MM__INIT(op), call, 0);                              \
    }
MM__PERSISTENT_SETUPS(allgather, "MPI_Allgather_init")
MM__PERSISTENT_SETUPS(allreduce, "MPI_Allreduce_init")
MM__PERSISTENT_SETUPS(alltoall, "MPI_Alltoall_init")
MM__PERSISTENT_SETUPS(barrier, "MPI_Barrier_init")
MM__PERSISTENT_SETUPS(bcast, "MPI_Bcast_init")
MM__PERSISTENT_SETUPS(reduce, "MPI_Reduce_init")
#undef MM__PERSISTENT_SETUPS

int mm__run_persistent(const mm_op_args *a) {
    mm__persistent *p = a->state;
    int rc = MPI_Start(&p->req);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&p->req, MPI_STATUS_IGNORE);
}

int mm__run_persistent_init(const mm_op_args *a) {
    mm__persistent *p = a->state;
    return p->init(a, &p->req);
}

int mm__after_persistent_init(mm_op_args *a) {
    mm__persistent *p = a->state;
    return p->req == MPI_REQUEST_NULL ? MPI_SUCCESS : MPI_Request_free(&p->req);
}

void mm__teardown_persistent(mm_op_args *a) {
    mm__persistent *p = a->state;
    if (p && p->req != MPI_REQUEST_NULL) MPI_Request_free(&p->req);
    free(a->state);
    a->state = NULL;
    mm__coll_teardown(a);
}
