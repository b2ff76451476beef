/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_p2p.c — the point-to-point ping-pongs of the op table: one timed call is ONE round trip of
 * `size` bytes between the two ranks of the pair, a -> b -> a, in one of ten ways of sending and
 * receiving.
 *
 * What: the pair is args->pair (a = pair[0] starts, b = pair[1] answers), from --pair or chosen
 *   by the launch (pairs.c: the pair with the largest ping-pong latency of a sample, SKaMPI's
 *   rule). Every other rank's timed call returns at once (it idles outside), so that the one
 *   loop drives every rank alike. Both sides' timed calls contain the whole exchange as that rank
 *   sees it: a's is the round trip; b's ends after its answer left.
 * Why: SKaMPI (Reussner et al. 1998, §2.1 and its list of measurements) measures point-to-point
 *   communication as ping-pongs between two processes, one variant per pair of MPI send and
 *   receive calls, because the sum of both directions needs no global clock; the analysis
 *   reports half the round trip as the one-way latency (the row's MM_OP_ROUND_TRIP flag, written
 *   to --describe and meta.json as "round_trip": true).
 * Sendrecv and Sendrecv_replace: SKaMPI's variants of these let both ranks call MPI_Sendrecv at
 *   once (an exchange, which is not a round trip). Here a's MPI_Sendrecv sends its message and
 *   receives b's reply, and b answers with MPI_Recv then MPI_Send, so that every pingpong-* row
 *   times one round trip and the halving holds for all of them.
 * Bsend: the buffer is attached in setup and detached in teardown, outside the timed region
 *   (MPI-3.1 §3.6: room for two messages, size + MPI_BSEND_OVERHEAD each).
 * Cost: two messages of size bytes per timed call; buffers of 2 x size bytes on the pair.
 * Paper: SKaMPI (Reussner et al. 1998) §2.1, §3.1; Hunold & Carpen-Amarie 2016 §3.2 (only the
 * call between the two timestamps). */
#include <stdlib.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

enum { MM__TAG_PING = 211, MM__TAG_PONG = 212 };

/* The Bsend buffer of a pair rank (NULL elsewhere). */
typedef struct mm__p2p_state {
    void *bsend_buf;
} mm__p2p_state;

mm_status mm__setup_pingpong(mm_op_args *a) {
    mm__args_clear(a);
    if (mm__args_check(a, 1) != 0) return MM_E_FAILED;
    if (a->pair[0] == a->pair[1] || a->pair[0] < 0 || a->pair[1] < 0 || a->pair[0] >= a->nprocs ||
        a->pair[1] >= a->nprocs)
        return mm__setup_failed(a, "the pair %d, %d is not two of the %d ranks", a->pair[0],
                                a->pair[1], a->nprocs);
    a->count = (int)(a->size / a->type_size);
    size_t bytes = a->size > 0 ? (size_t)a->size : 1;
    int in_pair = a->rank == a->pair[0] || a->rank == a->pair[1];
    if (!in_pair) bytes = 1; /* the idle ranks touch nothing */
    a->sendbuf = mm__buffer_alloc(bytes);
    a->recvbuf = mm__buffer_alloc(bytes);
    a->state = calloc(1, sizeof(mm__p2p_state));
    if (!a->sendbuf || !a->recvbuf || !a->state)
        return mm__setup_no_memory(a, "the send and receive buffers", 2 * (int64_t)bytes);
    for (size_t i = 0; i < bytes; i++) ((unsigned char *)a->sendbuf)[i] = (unsigned char)(i * 31 + 1);
    memset(a->recvbuf, 0, bytes); /* page faults here, not in the first timed call */
    return 0;
}

mm_status mm__setup_pingpong_bsend(mm_op_args *a) {
    if (mm__setup_pingpong(a) != 0) return MM_E_FAILED;
    if (a->rank != a->pair[0] && a->rank != a->pair[1]) return 0;
    mm__p2p_state *st = a->state;
    int bytes = 0;
    return mm__bsend_attach(a, 2, &st->bsend_buf, &bytes); /* the ping and the pong */
}

void mm__teardown_pingpong(mm_op_args *a) {
    mm__p2p_state *st = a->state;
    if (st) mm__bsend_detach(st->bsend_buf);
    free(a->state);
    free(a->sendbuf);
    free(a->recvbuf);
    a->state = a->sendbuf = a->recvbuf = NULL;
}

/* -1 on the idle ranks, else the peer; *starts: this rank sends first. */
static int mm__peer(const mm_op_args *a, int *starts) {
    *starts = a->rank == a->pair[0];
    if (*starts) return a->pair[1];
    return a->rank == a->pair[1] ? a->pair[0] : -1;
}

/* The usual answer of b: receive the ping, send the pong (MPI_Send). */
static inline int mm__answer(const mm_op_args *a, int peer) {
    int rc = MPI_Recv(a->recvbuf, a->count, a->datatype, peer, MM__TAG_PING, a->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Send(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PONG, a->comm);
}

/* Blocking send + MPI_Recv on both sides, in the send mode `send` (a constant per row). */
static inline int mm__blocking_pingpong(const mm_op_args *a, mm__send_fn send) {
    int starts, peer = mm__peer(a, &starts);
    if (peer < 0) return MPI_SUCCESS;
    int rc;
    if (starts) {
        rc = send(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PING, a->comm);
        if (rc != MPI_SUCCESS) return rc;
        return MPI_Recv(a->recvbuf, a->count, a->datatype, peer, MM__TAG_PONG, a->comm, MPI_STATUS_IGNORE);
    }
    rc = MPI_Recv(a->recvbuf, a->count, a->datatype, peer, MM__TAG_PING, a->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    return send(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PONG, a->comm);
}

int mm__run_pingpong_send_recv(const mm_op_args *a) { return mm__blocking_pingpong(a, MPI_Send); }
int mm__run_pingpong_ssend_recv(const mm_op_args *a) { return mm__blocking_pingpong(a, MPI_Ssend); }
int mm__run_pingpong_bsend_recv(const mm_op_args *a) { return mm__blocking_pingpong(a, MPI_Bsend); }

/* MPI_Isend then MPI_Wait on both sides, MPI_Recv for the receive. */
int mm__run_pingpong_isend_recv(const mm_op_args *a) {
    int starts, peer = mm__peer(a, &starts);
    if (peer < 0) return MPI_SUCCESS;
    MPI_Request req;
    int rc;
    if (!starts) {
        rc = MPI_Recv(a->recvbuf, a->count, a->datatype, peer, MM__TAG_PING, a->comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
    }
    rc = MPI_Isend(a->sendbuf, a->count, a->datatype, peer, starts ? MM__TAG_PING : MM__TAG_PONG,
                   a->comm, &req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || !starts) return rc;
    return MPI_Recv(a->recvbuf, a->count, a->datatype, peer, MM__TAG_PONG, a->comm, MPI_STATUS_IGNORE);
}

/* The receive of each side is posted (MPI_Irecv) before its send and completed by MPI_Wait. */
int mm__run_pingpong_send_irecv(const mm_op_args *a) {
    int starts, peer = mm__peer(a, &starts);
    if (peer < 0) return MPI_SUCCESS;
    MPI_Request req;
    int rc = MPI_Irecv(a->recvbuf, a->count, a->datatype, peer, starts ? MM__TAG_PONG : MM__TAG_PING,
                       a->comm, &req);
    if (rc != MPI_SUCCESS) return rc;
    if (starts) {
        rc = MPI_Send(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PING, a->comm);
        int wrc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        return rc != MPI_SUCCESS ? rc : wrc;
    }
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Send(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PONG, a->comm);
}

/* Both sides: MPI_Irecv posted first, MPI_Isend, completion by MPI_Wait(all). */
int mm__run_pingpong_isend_irecv(const mm_op_args *a) {
    int starts, peer = mm__peer(a, &starts);
    if (peer < 0) return MPI_SUCCESS;
    MPI_Request req[2];
    int rc = MPI_Irecv(a->recvbuf, a->count, a->datatype, peer, starts ? MM__TAG_PONG : MM__TAG_PING,
                       a->comm, &req[0]);
    if (rc != MPI_SUCCESS) return rc;
    if (!starts) {
        rc = MPI_Wait(&req[0], MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
        rc = MPI_Isend(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PONG, a->comm, &req[1]);
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    }
    rc = MPI_Isend(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PING, a->comm, &req[1]);
    if (rc != MPI_SUCCESS) {
        MPI_Cancel(&req[0]);
        MPI_Request_free(&req[0]);
        return rc;
    }
    MPI_Status statuses[2]; /* not MPI_STATUSES_IGNORE: MPICH's (MPI_Status *)1 trips gcc's bounds check */
    return MPI_Waitall(2, req, statuses);
}

/* a: one MPI_Sendrecv (ping out, pong in); b answers with MPI_Recv + MPI_Send (see header). */
int mm__run_pingpong_sendrecv(const mm_op_args *a) {
    int starts, peer = mm__peer(a, &starts);
    if (peer < 0) return MPI_SUCCESS;
    if (!starts) return mm__answer(a, peer);
    return MPI_Sendrecv(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PING, a->recvbuf, a->count,
                        a->datatype, peer, MM__TAG_PONG, a->comm, MPI_STATUS_IGNORE);
}

/* a: one MPI_Sendrecv_replace on one buffer; b answers with MPI_Recv + MPI_Send. */
int mm__run_pingpong_sendrecv_replace(const mm_op_args *a) {
    int starts, peer = mm__peer(a, &starts);
    if (peer < 0) return MPI_SUCCESS;
    if (!starts) return mm__answer(a, peer);
    return MPI_Sendrecv_replace(a->recvbuf, a->count, a->datatype, peer, MM__TAG_PING, peer,
                                MM__TAG_PONG, a->comm, MPI_STATUS_IGNORE);
}

/* Polls MPI_Iprobe until the message from peer with tag is there, then receives it. */
static int mm__probe_then_recv(const mm_op_args *a, int peer, int tag) {
    int flag = 0, rc = MPI_SUCCESS;
    while (!flag && rc == MPI_SUCCESS) rc = MPI_Iprobe(peer, tag, a->comm, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Recv(a->recvbuf, a->count, a->datatype, peer, tag, a->comm, MPI_STATUS_IGNORE);
}

int mm__run_pingpong_iprobe_recv(const mm_op_args *a) {
    int starts, peer = mm__peer(a, &starts);
    if (peer < 0) return MPI_SUCCESS;
    int rc;
    if (starts) {
        rc = MPI_Send(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PING, a->comm);
        return rc != MPI_SUCCESS ? rc : mm__probe_then_recv(a, peer, MM__TAG_PONG);
    }
    rc = mm__probe_then_recv(a, peer, MM__TAG_PING);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Send(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PONG, a->comm);
}

/* Both receives match any tag (the library cannot match on the tag alone). */
int mm__run_pingpong_anytag(const mm_op_args *a) {
    int starts, peer = mm__peer(a, &starts);
    if (peer < 0) return MPI_SUCCESS;
    int rc;
    if (starts) {
        rc = MPI_Send(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PING, a->comm);
        if (rc != MPI_SUCCESS) return rc;
        return MPI_Recv(a->recvbuf, a->count, a->datatype, peer, MPI_ANY_TAG, a->comm, MPI_STATUS_IGNORE);
    }
    rc = MPI_Recv(a->recvbuf, a->count, a->datatype, peer, MPI_ANY_TAG, a->comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Send(a->sendbuf, a->count, a->datatype, peer, MM__TAG_PONG, a->comm);
}
