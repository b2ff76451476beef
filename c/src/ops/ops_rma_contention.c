/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_rma_contention.c — IMB-RMA's contention patterns as rows of the op table: one origin and
 * every other rank as target (IMB's One_put_all, One_get_all; with lock-all-flush-local its
 * Put_all_local, Get_all_local), every rank against every other (All_put_all, All_get_all), and
 * the reverse of the first, every rank against one target (all-to-one: IMB has none, yet a
 * hot spot is a pattern applications have).
 *
 * What: one window over every rank of the test's communicator; the one rank of one-to-all and
 *   all-to-one is --root. A timed call on an origin is --rma-burst rounds, each an MPI_Put (or
 *   MPI_Get) of size bytes to each of its targets, then one completion: lock-all-flush:
 *   MPI_Win_flush_all, lock-all-flush-local: MPI_Win_flush_local_all, both in a lock_all epoch
 *   opened once in setup (IMB's sequence); fence: MPI_Win_fence before and after on every rank.
 *   Ranks that are no origin have an empty timed call in the passive modes. Origin o's round j
 *   goes to its own slot (o x burst + j) of each target's window: nothing overlaps.
 * Aggregate / non-aggregate: IMB-RMA times n_sample rounds and one flush_all in these patterns
 *   (its only mode for them) and divides by n_sample; in the one loop a timed call is one
 *   measurement, so the aggregate mode is --rma-burst rounds per timed call (time per round =
 *   the run time / burst), and --rma-burst 1 is the non-aggregate mode (a completion per
 *   round). Nothing but these MPI calls runs between the two timestamps.
 * Targets in IMB's order: origin r's k-th target is (r + k) mod p, so that the origins of
 *   all-to-all start on different targets (IMB_rma_put.c: "to avoid congestion").
 * Check after the test: every target slot a put reached holds its origin's pattern, every block
 *   a get fetched its target's; a mismatch fails the test with a message.
 * Cost: burst x targets operations of size bytes per origin and call; windows of
 *   nprocs x burst x size bytes per rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

typedef enum { MM__ONE_TO_ALL = 0, MM__ALL_TO_ALL, MM__ALL_TO_ONE } mm__contention_shape;

typedef struct mm__rmac {
    mm__contention_shape shape;
    int get, sync, burst, root;
    int ntargets, *targets; /* this rank's, in IMB's order (none: not an origin) */
    MPI_Aint *base;         /* each rank's window address (dynamic windows), else zeros */
    MPI_Aint block;
    mm__rma_win w;
    int lock_all_open;
    long calls;
} mm__rmac;

static int mm__sends_to(const mm__rmac *s, int origin, int target) {
    if (origin == target) return 0;
    switch (s->shape) {
    case MM__ONE_TO_ALL: return origin == s->root;
    case MM__ALL_TO_ALL: return 1;
    default: return target == s->root;
    }
}

/* Each rank's window: a slot of size bytes per origin and round (at least 64 bytes: MPICH
 * 4.0.2 loses puts into tiny windows, as the pair's rows). */
static int64_t mm__rmac_window_bytes(int nprocs, int burst, int64_t block) {
    int64_t bytes = (int64_t)nprocs * burst * block;
    return bytes < 64 ? 64 : bytes;
}

double mm__rmac_setup_bytes(const mm_op *op, int64_t size, int nprocs, int burst) {
    /* as mm__setup_rma_contention: the block sent, the window, and for the gets as much again
     * to read into; the check after the test one block */
    int get = op->setup == mm__setup_rma_one_get_all || op->setup == mm__setup_rma_all_get_all ||
              op->setup == mm__setup_rma_all_get_one;
    double window = (double)mm__rmac_window_bytes(nprocs, burst > 0 ? burst : 1, size);
    return 2.0 * (double)size + window * (get ? 2.0 : 1.0);
}

static MPI_Aint mm__slot(const mm__rmac *s, int origin, int round) {
    return ((MPI_Aint)origin * s->burst + round) * s->block;
}

/* ---- the timed call: burst rounds to every target, one completion ---- */

static inline int mm__rounds(const mm_op_args *a, const mm__rmac *s) {
    for (int j = 0; j < s->burst; j++)
        for (int k = 0; k < s->ntargets; k++) {
            int t = s->targets[k];
            MPI_Aint disp = s->base[t] + mm__slot(s, a->rank, j);
            int rc = s->get ? MPI_Get((char *)a->recvbuf + mm__slot(s, t, j), a->count, a->datatype, t, disp,
                                      a->count, a->datatype, s->w.win)
                            : MPI_Put(a->sendbuf, a->count, a->datatype, t, disp, a->count, a->datatype, s->w.win);
            if (rc != MPI_SUCCESS) return rc;
        }
    return MPI_SUCCESS;
}

int mm__run_rma_contention(const mm_op_args *a) {
    const mm__rmac *s = a->state;
    if (s->sync == MM_RMA_FENCE) {
        int rc = MPI_Win_fence(0, s->w.win);
        if (rc == MPI_SUCCESS) rc = mm__rounds(a, s);
        return rc != MPI_SUCCESS ? rc : MPI_Win_fence(0, s->w.win);
    }
    if (s->ntargets == 0) return MPI_SUCCESS;
    int rc = mm__rounds(a, s);
    if (rc != MPI_SUCCESS) return rc;
    return s->sync == MM_RMA_FLUSH_LOCAL ? MPI_Win_flush_local_all(s->w.win) : MPI_Win_flush_all(s->w.win);
}

int mm__after_rma_contention(mm_op_args *a) {
    ((mm__rmac *)a->state)->calls++;
    return MPI_SUCCESS;
}

/* ---- setup, check, teardown ---- */

static mm_status mm__setup(mm_op_args *a, mm__contention_shape shape, int get) {
    mm__args_clear(a);
    if (mm__args_check(a, 1) != 0) return MM_E_FAILED;
    if (a->nprocs < 2) return mm__setup_failed(a, "contention needs 2 ranks or more");
    mm__rmac *s = calloc(1, sizeof *s);
    if (!s) return mm__setup_no_memory(a, "the one-sided state", (int64_t)sizeof *s);
    a->state = s;
    s->w.win = MPI_WIN_NULL;
    s->shape = shape;
    s->get = get;
    s->sync = a->rma.sync;
    s->burst = a->rma.burst;
    s->root = a->root;
    if (s->burst < 1 || (s->sync != MM_RMA_FENCE && s->sync != MM_RMA_FLUSH && s->sync != MM_RMA_FLUSH_LOCAL))
        return mm__setup_failed(a, "--rma-sync %d with --rma-burst %d: contention takes fence, flush "
                                "or flush-local and a burst of 1 or more", s->sync, s->burst);
    a->count = (int)(a->size / a->type_size);
    s->block = (MPI_Aint)a->count * a->type_size;
    int64_t slots = (int64_t)a->nprocs * s->burst, bytes = mm__rmac_window_bytes(a->nprocs, s->burst, (int64_t)s->block);
    s->targets = malloc((size_t)a->nprocs * sizeof(int));
    s->base = calloc((size_t)a->nprocs, sizeof(MPI_Aint));
    a->sendbuf = mm__buffer_calloc(1, s->block > 0 ? (size_t)s->block : 1);
    a->recvbuf = mm__buffer_calloc(1, get && bytes > 0 ? (size_t)bytes : 1);
    if (!s->targets || !s->base || !a->sendbuf || !a->recvbuf)
        return mm__setup_no_memory(a, "the targets and buffers", (int64_t)s->block + (get ? bytes : 0));
    for (int k = 1; k < a->nprocs; k++) {
        int t = (a->rank + k) % a->nprocs;
        if (mm__sends_to(s, a->rank, t)) s->targets[s->ntargets++] = t;
    }
    if (mm__rma_win_open(&s->w, a->rma.window, bytes, a->comm, a) != 0) return MM_E_FAILED;
    int rc = MPI_SUCCESS;
    if (s->w.kind == MM_RMA_WIN_DYNAMIC) {
        /* a dynamic window's displacements are the target's addresses (MPI-3.1 §11.2.4) */
        MPI_Aint mine = 0;
        rc = MM__SETUP_MPI(a, MPI_Get_address(s->w.base, &mine));
        if (rc == MPI_SUCCESS) rc = MM__SETUP_MPI(a, MPI_Allgather(&mine, 1, MPI_AINT, s->base, 1, MPI_AINT, a->comm));
    }
    if (rc != MPI_SUCCESS) return MM_E_FAILED;
    /* the memory each side starts from: the own window inside an epoch of its own (MPI-3.1
     * §11.7, the separate memory model), then a barrier */
    mm__rma_fill(a->sendbuf, a->count, a->datatype, a->type_size, a->rank, 0);
    rc = MM__SETUP_MPI(a, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, a->rank, 0, s->w.win));
    if (rc != MPI_SUCCESS) return MM_E_FAILED;
    memset(s->w.base, 0, (size_t)s->w.bytes);
    for (int64_t slot = 0; get && slot < slots; slot++)
        mm__rma_fill((char *)s->w.base + slot * s->block, a->count, a->datatype, a->type_size, a->rank, 0);
    rc = MM__SETUP_MPI(a, MPI_Win_unlock(a->rank, s->w.win));
    if (rc == MPI_SUCCESS) rc = MM__SETUP_MPI(a, MPI_Barrier(a->comm));
    if (rc == MPI_SUCCESS && s->sync != MM_RMA_FENCE && s->ntargets > 0) {
        rc = MM__SETUP_MPI(a, MPI_Win_lock_all(0, s->w.win));
        s->lock_all_open = rc == MPI_SUCCESS;
    }
    return rc == MPI_SUCCESS ? 0 : MM_E_FAILED;
}

mm_status mm__setup_rma_one_put_all(mm_op_args *a) { return mm__setup(a, MM__ONE_TO_ALL, 0); }
mm_status mm__setup_rma_one_get_all(mm_op_args *a) { return mm__setup(a, MM__ONE_TO_ALL, 1); }
mm_status mm__setup_rma_all_put_all(mm_op_args *a) { return mm__setup(a, MM__ALL_TO_ALL, 0); }
mm_status mm__setup_rma_all_get_all(mm_op_args *a) { return mm__setup(a, MM__ALL_TO_ALL, 1); }
mm_status mm__setup_rma_all_put_one(mm_op_args *a) { return mm__setup(a, MM__ALL_TO_ONE, 0); }
mm_status mm__setup_rma_all_get_one(mm_op_args *a) { return mm__setup(a, MM__ALL_TO_ONE, 1); }

mm_status mm__inject_rma_contention(mm_op_args *a) {
    mm__rmac *s = a->state;
    if (!s) return 0; /* the parser's probe: the op can be injected */
    /* one byte of the data moved: what an origin puts, or a target's memory gets read from */
    if (!s->get && s->ntargets > 0 && s->block > 0) ((unsigned char *)a->sendbuf)[0] ^= 1u;
    if (s->get && s->block > 0)
        for (int o = 0; o < a->nprocs; o++)
            if (mm__sends_to(s, o, a->rank)) ((unsigned char *)s->w.base)[mm__slot(s, o, 0)] ^= 1u;
    return 0;
}

/* Compares count elements at got with the pattern of `rank`; 0, or MM_E_FAILED with why. */
static mm_status mm__compare(const mm_op_args *a, const mm__rmac *s, const void *got, int rank, const char *what,
                             int origin, int target, int round, void *want, char *why, size_t why_len) {
    mm__rma_fill(want, a->count, a->datatype, a->type_size, rank, 0);
    size_t bytes = (size_t)s->block;
    if (memcmp(got, want, bytes) == 0) return 0;
    size_t i = 0;
    while (i < bytes && ((const unsigned char *)got)[i] == ((const unsigned char *)want)[i]) i++;
    char sync[32];
    const char *words = MM_RMA_SYNC_WORDS;
    for (int k = 0; k < s->sync && words; k++) words = strchr(words, ',') ? strchr(words, ',') + 1 : NULL;
    snprintf(sync, sizeof sync, "%.*s", words ? (int)strcspn(words, ",") : 0, words ? words : "");
    snprintf(why, why_len, "wrong data after the test: %s of origin %d, target %d, round %d holds byte %u at "
             "byte %zu where %u was expected (--rma-sync %s, %ld calls)", what, origin, target, round,
             (unsigned)((const unsigned char *)got)[i], i, (unsigned)((const unsigned char *)want)[i], sync,
             s->calls);
    return MM_E_FAILED;
}

mm_status mm__verify_rma_contention(mm_op_args *a, char *why, size_t why_len) {
    mm__rmac *s = a->state;
    if (!s) return 0;
    int rc = MPI_SUCCESS;
    if (s->sync == MM_RMA_FENCE) rc = MPI_Win_fence(MPI_MODE_NOSUCCEED, s->w.win);
    if (s->lock_all_open) {
        int rc_unlock = MPI_Win_unlock_all(s->w.win);
        if (rc == MPI_SUCCESS) rc = rc_unlock;
        s->lock_all_open = 0;
    }
    if (rc == MPI_SUCCESS) rc = MPI_Barrier(a->comm);
    if (rc != MPI_SUCCESS) return mm__verify_mpi_failed(rc, why, why_len);
    if (s->calls < 1 || s->block == 0) return MM_OK;
    void *want = malloc((size_t)s->block);
    if (!want) {
        snprintf(why, why_len, "out of memory for the check after the test");
        return MM_E_FAILED;
    }
    mm_status bad = MM_OK;
    if (s->get) { /* what this origin fetched: its targets' patterns */
        for (int j = 0; j < s->burst && !bad; j++)
            for (int k = 0; k < s->ntargets && !bad; k++)
                bad = mm__compare(a, s, (char *)a->recvbuf + mm__slot(s, s->targets[k], j), s->targets[k],
                                  "the block fetched", a->rank, s->targets[k], j, want, why, why_len);
    } else { /* this target's window: every origin's slots */
        rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, a->rank, 0, s->w.win);
        for (int o = 0; o < a->nprocs && !bad && rc == MPI_SUCCESS; o++)
            for (int j = 0; j < s->burst && !bad && mm__sends_to(s, o, a->rank); j++)
                bad = mm__compare(a, s, (char *)s->w.base + mm__slot(s, o, j), o, "the window slot", o,
                                  a->rank, j, want, why, why_len);
        int rc_unlock = rc == MPI_SUCCESS ? MPI_Win_unlock(a->rank, s->w.win) : rc;
        if (rc == MPI_SUCCESS) rc = rc_unlock;
    }
    free(want);
    if (bad) return MM_E_FAILED;
    return rc == MPI_SUCCESS ? MM_OK : mm__verify_mpi_failed(rc, why, why_len);
}

void mm__teardown_rma_contention(mm_op_args *a) {
    mm__rmac *s = a->state;
    if (s) {
        if (s->lock_all_open) MPI_Win_unlock_all(s->w.win);
        mm__rma_win_release(&s->w);
        free(s->targets);
        free(s->base);
    }
    free(a->state);
    free(a->sendbuf);
    free(a->recvbuf);
    a->state = a->sendbuf = a->recvbuf = NULL;
}
