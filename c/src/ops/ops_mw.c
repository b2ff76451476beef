/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_mw.c — SKaMPI's master-worker patterns in the op table: the master (--root) collects
 * `size` bytes from every worker, or sends `size` bytes to every worker, in one timed call.
 *
 * What: the workers are every rank but the master, served in the order root+1, root+2, ...
 *   (mod nprocs). Collect: each worker's timed call is one MPI_Send of size bytes to the master;
 *   the master receives them with MPI_Recv(MPI_ANY_SOURCE) one after the other (mw-recv-any:
 *   whoever arrives first is served first), or posts one MPI_Irecv per worker and completes them
 *   with MPI_Waitany (mw-waitany) or MPI_Waitsome (mw-waitsome). Send: the master sends size
 *   bytes to each worker with MPI_Send, MPI_Isend + MPI_Waitall, MPI_Bsend or MPI_Ssend; each
 *   worker's timed call is one MPI_Recv.
 * Why: a master that hands out and collects work is the commonest irregular pattern; how a
 *   library serves many senders at one receiver (wildcard matching, request completion) is not
 *   visible in ping-pongs or collectives (SKaMPI, Reussner et al. 1998, §2.1 and its list of
 *   measurements: "master-worker" patterns). The ranks finish apart by design (the master last).
 * Bsend: the buffer (one round of nprocs-1 messages, MPI-3.1 §3.6) is attached in setup and
 *   detached in teardown; after every call (the row's `after` hook, outside the timed region) it
 *   is detached and attached again, which waits until the round's messages left: the master
 *   cannot know when the workers received them, and a library progresses a buffered large
 *   message only inside MPI calls, so without this the next rounds would find the buffer full
 *   (MPI_ERR_BUFFER) while the master waits for its next start outside MPI.
 * Cost: nprocs-1 messages of size bytes per call; the master holds (nprocs-1) x size bytes for
 *   the receives it posts at once. */
#include <stdlib.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "ops_mw.h"
#include "mm_error.h"

enum { MM__TAG_MW = 221 };

mm_status mm__setup_mw(mm_op_args *a) {
    mm__args_clear(a);
    if (mm__args_check(a, 1) != 0) return MM_E_FAILED;
    if (a->nprocs < 2) return mm__setup_failed(a, "a master and its workers need 2 ranks or more");
    a->count = (int)(a->size / a->type_size);
    size_t block = a->size > 0 ? (size_t)a->size : 1;
    int workers = a->nprocs - 1;
    size_t recv_bytes = a->rank == a->root ? block * (size_t)workers : block;
    a->sendbuf = mm__buffer_alloc(block);
    a->recvbuf = mm__buffer_alloc(recv_bytes);
    mm__mw_state *st = calloc(1, sizeof *st);
    a->state = st;
    if (!a->sendbuf || !a->recvbuf || !st)
        return mm__setup_no_memory(a, "the send and receive buffers", (int64_t)(block + recv_bytes));
    if (a->rank == a->root) {
        st->reqs = malloc((size_t)workers * sizeof *st->reqs);
        st->done = malloc((size_t)workers * sizeof *st->done);
        st->statuses = malloc((size_t)workers * sizeof *st->statuses);
        if (!st->reqs || !st->done || !st->statuses)
            return mm__setup_no_memory(a, "the master's requests", (int64_t)workers *
                                       (int64_t)(sizeof *st->reqs + sizeof *st->done + sizeof *st->statuses));
        for (int i = 0; i < workers; i++) st->reqs[i] = MPI_REQUEST_NULL;
    }
    for (size_t i = 0; i < block; i++) ((unsigned char *)a->sendbuf)[i] = (unsigned char)(i * 31 + a->rank);
    memset(a->recvbuf, 0, recv_bytes);
    return 0;
}

mm_status mm__setup_mw_bsend(mm_op_args *a) {
    if (mm__setup_mw(a) != 0) return MM_E_FAILED;
    if (a->rank != a->root) return 0;
    mm__mw_state *st = a->state;
    return mm__bsend_attach(a, a->nprocs - 1, &st->bsend_buf, &st->bsend_bytes); /* one per worker */
}

int mm__after_mw_bsend(mm_op_args *a) {
    mm__mw_state *st = a->state;
    if (!st || !st->bsend_buf) return MPI_SUCCESS;
    void *buf = NULL;
    int bytes = 0;
    int rc = MPI_Buffer_detach(&buf, &bytes); /* returns when the round's messages left */
    return rc != MPI_SUCCESS ? rc : MPI_Buffer_attach(st->bsend_buf, st->bsend_bytes);
}

void mm__teardown_mw(mm_op_args *a) {
    mm__mw_state *st = a->state;
    if (st) {
        mm__bsend_detach(st->bsend_buf);
        free(st->reqs);
        free(st->done);
        free(st->statuses);
    }
    free(a->state);
    free(a->sendbuf);
    free(a->recvbuf);
    a->state = a->sendbuf = a->recvbuf = NULL;
}

/* A worker of a collect pattern: one send to the master. */
static int mm__worker_send(const mm_op_args *a) {
    return MPI_Send(a->sendbuf, a->count, a->datatype, a->root, MM__TAG_MW, a->comm);
}

/* A worker of a send pattern: one receive from the master. */
static int mm__worker_recv(const mm_op_args *a) {
    return MPI_Recv(a->recvbuf, a->count, a->datatype, a->root, MM__TAG_MW, a->comm, MPI_STATUS_IGNORE);
}

int mm__run_mw_recv_any(const mm_op_args *a) {
    if (a->rank != a->root) return mm__worker_send(a);
    /* one buffer: with MPI_ANY_SOURCE the sender is known only after the receive */
    for (int i = 0; i < a->nprocs - 1; i++) {
        int rc = MPI_Recv(a->recvbuf, a->count, a->datatype, MPI_ANY_SOURCE, MM__TAG_MW, a->comm,
                          MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

/* Posts one MPI_Irecv per worker into its block. */
static int mm__post_receives(const mm_op_args *a, MPI_Request *reqs) {
    for (int i = 0; i < a->nprocs - 1; i++) {
        int rc = MPI_Irecv(mm__mw_block(a, i), a->count, a->datatype, mm__mw_worker(a, i), MM__TAG_MW,
                           a->comm, &reqs[i]);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int mm__run_mw_waitany(const mm_op_args *a) {
    if (a->rank != a->root) return mm__worker_send(a);
    mm__mw_state *st = a->state;
    int rc = mm__post_receives(a, st->reqs);
    for (int k = 0; k < a->nprocs - 1 && rc == MPI_SUCCESS; k++) {
        int index;
        rc = MPI_Waitany(a->nprocs - 1, st->reqs, &index, MPI_STATUS_IGNORE);
    }
    return rc;
}

int mm__run_mw_waitsome(const mm_op_args *a) {
    if (a->rank != a->root) return mm__worker_send(a);
    mm__mw_state *st = a->state;
    int rc = mm__post_receives(a, st->reqs);
    for (int left = a->nprocs - 1; left > 0 && rc == MPI_SUCCESS;) {
        int completed = 0;
        rc = MPI_Waitsome(a->nprocs - 1, st->reqs, &completed, st->done, st->statuses);
        if (completed == MPI_UNDEFINED) break; /* no active request left */
        left -= completed;
    }
    return rc;
}

/* The master sends to every worker in turn in the send mode `send` (a constant per row). */
static inline int mm__send_to_workers(const mm_op_args *a, mm__send_fn send) {
    if (a->rank != a->root) return mm__worker_recv(a);
    for (int i = 0; i < a->nprocs - 1; i++) {
        int rc = send(a->sendbuf, a->count, a->datatype, mm__mw_worker(a, i), MM__TAG_MW, a->comm);
        if (rc != MPI_SUCCESS) return rc;
    }
    return MPI_SUCCESS;
}

int mm__run_mw_send(const mm_op_args *a) { return mm__send_to_workers(a, MPI_Send); }

int mm__run_mw_isend(const mm_op_args *a) {
    if (a->rank != a->root) return mm__worker_recv(a);
    mm__mw_state *st = a->state;
    int n = 0, rc = MPI_SUCCESS;
    for (; n < a->nprocs - 1 && rc == MPI_SUCCESS; n++)
        rc = MPI_Isend(a->sendbuf, a->count, a->datatype, mm__mw_worker(a, n), MM__TAG_MW, a->comm,
                       &st->reqs[n]);
    if (rc != MPI_SUCCESS) n--; /* the failed one was not started */
    int wrc = MPI_Waitall(n, st->reqs, st->statuses);
    return rc != MPI_SUCCESS ? rc : wrc;
}

int mm__run_mw_bsend(const mm_op_args *a) { return mm__send_to_workers(a, MPI_Bsend); }

int mm__run_mw_ssend(const mm_op_args *a) { return mm__send_to_workers(a, MPI_Ssend); }
