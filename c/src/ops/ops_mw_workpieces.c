/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_mw_workpieces.c — SKaMPI's master-worker measurement "MPI_Waitsome, varied over the number
 * of workpieces" as one row of the op table (mw-workpieces): the master (--root) hands out
 * --workpieces pieces of `size` bytes to the workers and collects a result of `size` bytes for
 * each, completing the results with MPI_Waitsome; one timed call = every piece handed out and
 * back, and every worker told to stop.
 *
 * What: the workers are every rank but the master, in the order root+1, root+2, ... (mod
 *   nprocs). The master posts a receive for worker i's result, then sends it its first piece
 *   (MPI_Send), for the first min(pieces, workers) workers; a worker without a piece gets the
 *   stop message (0 bytes, its own tag) at once. Then, until every piece is back: MPI_Waitsome
 *   over the workers' result requests, and each worker whose result arrived gets the next piece
 *   (its receive posted again first) or, when none is left, the stop message. A worker loops:
 *   MPI_Recv from the master with any tag; a piece is answered with its result (MPI_Send), the
 *   stop message ends the call. Pieces are handed out dynamically, as a master balancing work
 *   does: a worker that answers sooner gets more of them.
 * Why: SKaMPI (Reussner et al. 1998, §2.1: a master "partitions a problem into smaller pieces
 *   and dispatches them to several worker processes", whose contention at the master
 *   MPI_Waitsome is made for; its list of measurements, 3.7: "MPI_Waitsome (varied over the
 *   number of workpieces for workers)"). Each --workpieces value is one test
 *   (meta.json tests[].workpieces), shuffled with the others.
 * Cost: 2 x pieces messages of size bytes and one empty stop message per worker per call; the
 *   master holds one result block per worker (its receives are all posted at once). */
#include "mm_ops.h"
#include "ops_internal.h"
#include "ops_mw.h"
#include "mm_error.h"

/* tags of their own: the other master-worker rows use 221 */
enum { MM__TAG_PIECE = 231, MM__TAG_RESULT = 232, MM__TAG_STOP = 233 };

/* The buffers and the master's requests are the other master-worker rows' (ops_mw.h); only
 * --workpieces is checked here. Teardown: mm__teardown_mw. */
mm_status mm__setup_mw_workpieces(mm_op_args *a) {
    if (a->workpieces < 1) {
        mm__args_clear(a); /* nothing for the teardown to free */
        return mm__setup_failed(a, "--workpieces %d: at least one piece", a->workpieces);
    }
    return mm__setup_mw(a);
}

/* A worker: answers pieces until the stop message. */
static int mm__worker_loop(const mm_op_args *a) {
    for (;;) {
        MPI_Status status;
        int rc = MPI_Recv(a->recvbuf, a->count, a->datatype, a->root, MPI_ANY_TAG, a->comm, &status);
        if (rc != MPI_SUCCESS || status.MPI_TAG == MM__TAG_STOP) return rc;
        rc = MPI_Send(a->sendbuf, a->count, a->datatype, a->root, MM__TAG_RESULT, a->comm);
        if (rc != MPI_SUCCESS) return rc;
    }
}

/* The master gives worker i its next piece (its result's receive posted first, so that the
 * answer never arrives unexpected), or the stop message when none is left. */
static int mm__hand_out(const mm_op_args *a, mm__mw_state *st, int i, int *sent) {
    int worker = mm__mw_worker(a, i);
    if (*sent >= a->workpieces)
        return MPI_Send(a->sendbuf, 0, a->datatype, worker, MM__TAG_STOP, a->comm);
    int rc = MPI_Irecv(mm__mw_block(a, i), a->count, a->datatype, worker, MM__TAG_RESULT, a->comm, &st->reqs[i]);
    if (rc != MPI_SUCCESS) return rc;
    (*sent)++;
    return MPI_Send(a->sendbuf, a->count, a->datatype, worker, MM__TAG_PIECE, a->comm);
}

int mm__run_mw_workpieces(const mm_op_args *a) {
    if (a->rank != a->root) return mm__worker_loop(a);
    mm__mw_state *st = a->state;
    const int workers = a->nprocs - 1;
    int sent = 0, rc = MPI_SUCCESS;
    for (int i = 0; i < workers && rc == MPI_SUCCESS; i++) rc = mm__hand_out(a, st, i, &sent);
    for (int back = 0; back < a->workpieces && rc == MPI_SUCCESS;) {
        int completed = 0;
        rc = MPI_Waitsome(workers, st->reqs, &completed, st->done, st->statuses);
        if (rc != MPI_SUCCESS || completed == MPI_UNDEFINED) break; /* no active request left */
        back += completed;
        for (int k = 0; k < completed && rc == MPI_SUCCESS; k++) rc = mm__hand_out(a, st, st->done[k], &sent);
    }
    return rc;
}
