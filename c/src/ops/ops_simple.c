/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_simple.c — SKaMPI's "simple" measurements in the op table: one cheap MPI call (or none)
 * per timed call, on every rank.
 *
 * What: simple-empty (nothing: the cost of the measurement itself, two timer reads and the
 *   loop's indirect call), simple-wtime (MPI_Wtime), simple-comm-rank, simple-comm-size,
 *   simple-iprobe (an MPI_Iprobe that finds nothing: no rank ever sends its tag),
 *   simple-comm-split (every rank in one color) and simple-comm-dup. The communicators the last
 *   two create are freed by the row's `after` hook, which the loop calls after the end
 *   timestamp: outside the timed region, so that only the creation is measured.
 *   simple-attach: MPI_Buffer_attach of a buffer of size bytes, then MPI_Buffer_detach (the
 *   pair is the measurement: a buffer cannot stay attached across repetitions).
 * Why: SKaMPI (Reussner et al. 1998, §2.1 and its list of measurements) times such calls to
 *   show the fixed costs every program pays, and the empty measurement (§3.1) to show the
 *   systematic overhead of measuring at all; results are written to a state block so that no
 *   call can be optimized away.
 * Cost: the call; comm-split and comm-dup are collective (an allgather or an agreement on a
 *   context id inside the library). */
#include <stdint.h>
#include <stdlib.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

/* Nobody sends with this tag: MPI_Iprobe on it never succeeds. */
enum { MM__TAG_NEVER_SENT = 231 };

/* Where the calls write their results (the one communicator of split/dup until `after`). */
typedef struct mm__simple_state {
    double wtime;
    int value;
    MPI_Comm created;
} mm__simple_state;

mm_status mm__setup_simple(mm_op_args *a) {
    a->sendbuf = a->recvbuf = NULL;
    a->sendcounts = a->sdispls = a->recvcounts = a->rdispls = NULL;
    a->count = 0;
    a->error[0] = '\0';
    mm__simple_state *st = calloc(1, sizeof *st);
    a->state = st;
    if (!st) return mm__setup_no_memory(a, "the call's state", (int64_t)sizeof *st);
    st->created = MPI_COMM_NULL;
    return 0;
}

void mm__teardown_simple(mm_op_args *a) {
    mm__simple_state *st = a->state;
    free(a->sendbuf); /* simple-attach's buffer; NULL for the others */
    a->sendbuf = NULL;
    if (st && st->created != MPI_COMM_NULL) MPI_Comm_free(&st->created);
    free(a->state);
    a->state = NULL;
}

int mm__run_simple_empty(const mm_op_args *a) {
    (void)a;
    return MPI_SUCCESS;
}

int mm__run_simple_wtime(const mm_op_args *a) {
    ((mm__simple_state *)a->state)->wtime = MPI_Wtime();
    return MPI_SUCCESS;
}

int mm__run_simple_comm_rank(const mm_op_args *a) {
    return MPI_Comm_rank(a->comm, &((mm__simple_state *)a->state)->value);
}

int mm__run_simple_comm_size(const mm_op_args *a) {
    return MPI_Comm_size(a->comm, &((mm__simple_state *)a->state)->value);
}

int mm__run_simple_iprobe(const mm_op_args *a) {
    return MPI_Iprobe(MPI_ANY_SOURCE, MM__TAG_NEVER_SENT, a->comm,
                      &((mm__simple_state *)a->state)->value, MPI_STATUS_IGNORE);
}

int mm__run_simple_comm_split(const mm_op_args *a) {
    return MPI_Comm_split(a->comm, 0, a->rank, &((mm__simple_state *)a->state)->created);
}

int mm__run_simple_comm_dup(const mm_op_args *a) {
    return MPI_Comm_dup(a->comm, &((mm__simple_state *)a->state)->created);
}

/* After the end timestamp: frees the communicator the timed call created. */
int mm__after_simple_free_comm(mm_op_args *a) {
    mm__simple_state *st = a->state;
    if (!st || st->created == MPI_COMM_NULL) return MPI_SUCCESS;
    return MPI_Comm_free(&st->created);
}

/* simple-attach: the buffer (size bytes, allocated here) that each timed call attaches. */
mm_status mm__setup_simple_attach(mm_op_args *a) {
    /* checked before a launch too (mm_op_check_size) */
    if (mm__args_check(a, MM__SIZE_MEMORY) != 0) return MM_E_FAILED;
    if (a->size > INT32_MAX)
        return mm__setup_failed(a, "size %lld: MPI_Buffer_attach takes at most %d bytes",
                                (long long)a->size, INT32_MAX);
    if (mm__setup_simple(a) != 0) return MM_E_FAILED;
    a->sendbuf = mm__buffer_alloc(a->size > 0 ? (size_t)a->size : 1);
    return a->sendbuf ? 0 : mm__setup_no_memory(a, "the buffer to attach", a->size);
}

int mm__run_simple_attach(const mm_op_args *a) {
    void *detached = NULL;
    int bytes = 0;
    int rc = MPI_Buffer_attach(a->sendbuf, (int)a->size);
    return rc != MPI_SUCCESS ? rc : MPI_Buffer_detach(&detached, &bytes);
}
