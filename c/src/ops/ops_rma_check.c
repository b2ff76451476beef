/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_rma_check.c — what a one-sided test starts from and the check after it: the target's
 * window and the origin's fetched values must hold exactly what the operations put there.
 *
 * What: the origin's data and the target's window are filled with known values of --datatype
 *   before the test (outside the timed region); after the test (mm__verify_rma, collective,
 *   once) the epoch is closed, and
 *     put, rput, put-bw:   every block of the target's window equals the origin's data;
 *     get, rget, get-bw:   every block the origin fetched equals the target's window;
 *     accumulate:          the target holds W0 op v op ... op v (n times), W0 its initial
 *                          values, v the origin's, n the timed calls made (warm-up included);
 *     get-accumulate, fetch-and-op: the same, and the origin's fetched values are the target's
 *                          before the last call, W0 op v (n-1 times);
 *     compare-and-swap:    the first call swaps (compare = W0), the others find the swapped
 *                          value and leave it: target = the origin's value; fetched = W0 after
 *                          one call, the origin's value after more.
 *   The expected reduction is computed with MPI_Reduce_local, by repeated squaring (the
 *   predefined operations are associative and commutative, MPI-3.1 §5.9.2). Accumulated values
 *   are 1 and 2, so that sums stay exact integers and products powers of two in floating point:
 *   the squaring's order of evaluation then gives the same bits as the target's.
 * Why: correctness is checked, not assumed; a library that loses an update
 *   or a lock that does not exclude fails its test with a message saying where.
 * Cost: O(count x log n) local reductions; one barrier and a lock of the target's own window. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

/* Element i: 1 or 2 (small: accumulated), else 1..97 (moved as is). */
static long mm__value(int i, int salt, int small) {
    return small ? 1 + (i + salt) % 2 : 1 + ((long)i * 7 + salt) % 97;
}

void mm__rma_fill(void *buf, int count, MPI_Datatype dt, int type_size, int salt, int small) {
    mm__datatype_kind kind = mm__datatype_kind_of(dt);
    for (int i = 0; i < count; i++) {
        long v = mm__value(i, salt, small);
        char *p = (char *)buf + (size_t)i * (size_t)type_size;
        if (kind == MM__KIND_FLOAT && type_size == (int)sizeof(float)) {
            float f = (float)v;
            memcpy(p, &f, sizeof f);
        } else if (kind == MM__KIND_FLOAT && type_size == (int)sizeof(double)) {
            double d = (double)v;
            memcpy(p, &d, sizeof d);
        } else if (type_size == (int)sizeof(int)) {
            int x = (int)v;
            memcpy(p, &x, sizeof x);
        } else if (type_size == (int)sizeof(long)) {
            memcpy(p, &v, sizeof v);
        } else {
            memset(p, 0, (size_t)type_size);
            *(unsigned char *)p = (unsigned char)v;
        }
    }
}

static int mm__small(const mm__rma *s) {
    return s->call == MM__RMA_ACC || s->call == MM__RMA_GET_ACC || s->call == MM__RMA_FOP ||
           s->call == MM__RMA_CAS;
}
static int mm__fetches(const mm__rma *s) {
    return s->call == MM__RMA_GET || s->call == MM__RMA_RGET;
}

enum { MM__SALT_ORIGIN = 0, MM__SALT_TARGET = 1, MM__SALT_GET = 5 };

mm_status mm__rma_initial(mm_op_args *a, mm__rma *s) {
    int small = mm__small(s), rc = MPI_SUCCESS;
    if (s->prank == 0) {
        mm__rma_fill(a->sendbuf, a->count, a->datatype, a->type_size, MM__SALT_ORIGIN, small);
        mm__rma_fill(s->compare, 1, a->datatype, a->type_size, MM__SALT_TARGET, small);
    } else if (s->prank == 1) {
        /* the target's own window, inside an epoch of its own (MPI-3.1 §11.7: the separate
         * memory model needs one for local stores to reach the public copy) */
        rc = MM__SETUP_MPI(a, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, s->w.win));
        if (rc != MPI_SUCCESS) return MM_E_FAILED;
        memset(s->w.base, 0, (size_t)s->w.bytes);
        for (int b = 0; b < s->burst && !(s->call == MM__RMA_PUT || s->call == MM__RMA_RPUT); b++)
            mm__rma_fill((char *)s->w.base + (size_t)b * (size_t)s->block, a->count, a->datatype,
                         a->type_size, small ? MM__SALT_TARGET : MM__SALT_GET, small);
        rc = MM__SETUP_MPI(a, MPI_Win_unlock(1, s->w.win));
        if (rc != MPI_SUCCESS) return MM_E_FAILED;
    }
    return MM__SETUP_MPI(a, MPI_Barrier(s->pc)) == MPI_SUCCESS ? 0 : MM_E_FAILED;
}

mm_status mm__inject_rma(mm_op_args *a) {
    mm__rma *s = a->state;
    if (!s) return 0; /* the parser's probe: the op can be injected */
    s->corrupt = 1;
    /* one byte of the data moved: the origin's for what it sends, the target's for gets (a
     * plain store, test only: the lock-all modes already hold a lock on it) */
    if (mm__fetches(s) && s->prank == 1 && s->w.bytes > 0) ((unsigned char *)s->w.base)[0] ^= 1u;
    if (!mm__fetches(s) && s->prank == 0 && a->type_size > 0) ((unsigned char *)a->sendbuf)[0] ^= 1u;
    return 0;
}

/* out = v op v op ... op v (n >= 1 times), by squaring; tmp and base: count elements each. */
static int mm__power(const void *v, long n, const mm_op_args *a, void *out, void *base, void *tmp) {
    size_t bytes = (size_t)a->count * (size_t)a->type_size;
    memcpy(base, v, bytes);
    int have = 0, rc = MPI_SUCCESS;
    while (n > 0 && rc == MPI_SUCCESS) {
        if (n & 1) {
            if (have) rc = MPI_Reduce_local(base, out, a->count, a->datatype, a->reduce_op);
            else memcpy(out, base, bytes);
            have = 1;
        }
        n >>= 1;
        if (n > 0 && rc == MPI_SUCCESS) {
            memcpy(tmp, base, bytes);
            rc = MPI_Reduce_local(tmp, base, a->count, a->datatype, a->reduce_op);
        }
    }
    return rc;
}

/* W0 op v^n into out (n = 0: W0). */
static int mm__expected_acc(const mm_op_args *a, long n, void *out) {
    size_t bytes = (size_t)a->count * (size_t)a->type_size + 1;
    void *v = malloc(bytes), *vn = malloc(bytes), *base = malloc(bytes), *tmp = malloc(bytes);
    int rc = v && vn && base && tmp ? MPI_SUCCESS : -1;
    if (rc == MPI_SUCCESS) {
        mm__rma_fill(out, a->count, a->datatype, a->type_size, MM__SALT_TARGET, 1);
        mm__rma_fill(v, a->count, a->datatype, a->type_size, MM__SALT_ORIGIN, 1);
        if (n > 0) rc = mm__power(v, n, a, vn, base, tmp);
        if (n > 0 && rc == MPI_SUCCESS) rc = MPI_Reduce_local(vn, out, a->count, a->datatype, a->reduce_op);
    }
    free(v);
    free(vn);
    free(base);
    free(tmp);
    return rc;
}

static void mm__value_text(const void *p, const mm_op_args *a, char *out, size_t len) {
    mm__datatype_kind kind = mm__datatype_kind_of(a->datatype);
    if (kind == MM__KIND_FLOAT && a->type_size == (int)sizeof(float)) {
        float f;
        memcpy(&f, p, sizeof f);
        snprintf(out, len, "%.9g", (double)f);
    } else if (kind == MM__KIND_FLOAT) {
        double d;
        memcpy(&d, p, sizeof d);
        snprintf(out, len, "%.17g", d);
    } else if (a->type_size == (int)sizeof(int)) {
        int x;
        memcpy(&x, p, sizeof x);
        snprintf(out, len, "%d", x);
    } else if (a->type_size == (int)sizeof(long)) {
        long x;
        memcpy(&x, p, sizeof x);
        snprintf(out, len, "%ld", x);
    } else {
        snprintf(out, len, "%u", (unsigned)*(const unsigned char *)p);
    }
}

static void mm__word(const char *words, int index, char *out, size_t len) {
    const char *p = words;
    for (int i = 0; i < index && p; i++) {
        p = strchr(p, ',');
        if (p) p++;
    }
    size_t n = p ? strcspn(p, ",") : 0;
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), p ? p : "");
}

/* Compares nblocks blocks of `got`, block bytes apart, with `want` (count elements). 0, or
 * MM_E_FAILED with the first wrong element in why. */
static mm_status mm__compare(const mm_op_args *a, const mm__rma *s, const char *what, const void *got,
                             int nblocks, const void *want, char *why, size_t why_len) {
    size_t block = (size_t)a->count * (size_t)a->type_size;
    for (int b = 0; b < nblocks; b++) {
        const char *g = (const char *)got + (size_t)b * (size_t)s->block;
        if (memcmp(g, want, block) == 0) continue;
        size_t i = 0;
        while (i < (size_t)a->count && memcmp(g + i * (size_t)a->type_size, (const char *)want + i * (size_t)a->type_size,
                                              (size_t)a->type_size) == 0)
            i++;
        char held[48], expected[48], sync[32], window[32];
        mm__value_text(g + i * (size_t)a->type_size, a, held, sizeof held);
        mm__value_text((const char *)want + i * (size_t)a->type_size, a, expected, sizeof expected);
        mm__word(MM_RMA_SYNC_WORDS, s->sync, sync, sizeof sync);
        mm__word(MM_RMA_WINDOW_WORDS, s->w.kind, window, sizeof window);
        snprintf(why, why_len,
                 "wrong data after the test: %s, element %zu of operation %d's block, holds %s "
                 "where %s was expected (--rma-sync %s, --rma-window %s, %ld calls)",
                 what, i, b, held, expected, sync, window, s->calls);
        return MM_E_FAILED;
    }
    return 0;
}

/* Closes the epoch the timed calls left open; then both sides see the final memory. */
static int mm__close_epoch(mm__rma *s) {
    int rc = MPI_SUCCESS;
    if (s->sync == MM_RMA_FENCE) rc = MPI_Win_fence(MPI_MODE_NOSUCCEED, s->w.win);
    if (s->lock_all_open) {
        rc = MPI_Win_unlock_all(s->w.win);
        s->lock_all_open = 0;
    }
    return rc != MPI_SUCCESS ? rc : MPI_Barrier(s->pc);
}

static mm_status mm__verify_target(mm_op_args *a, mm__rma *s, void *want, char *why, size_t why_len) {
    int rc = MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, s->w.win);
    if (rc != MPI_SUCCESS) return mm__verify_mpi_failed(rc, why, why_len);
    mm_status bad = MM_OK;
    if (s->call == MM__RMA_PUT || s->call == MM__RMA_RPUT) {
        mm__rma_fill(want, a->count, a->datatype, a->type_size, MM__SALT_ORIGIN, 0);
        bad = mm__compare(a, s, "the target's window", s->w.base, s->burst, want, why, why_len);
    } else if (s->call == MM__RMA_CAS) {
        mm__rma_fill(want, 1, a->datatype, a->type_size, MM__SALT_ORIGIN, 1);
        bad = mm__compare(a, s, "the target's window", s->w.base, 1, want, why, why_len);
    } else if (!mm__fetches(s)) {
        rc = mm__expected_acc(a, s->calls, want);
        if (rc == MPI_SUCCESS)
            bad = mm__compare(a, s, "the target's window", s->w.base, 1, want, why, why_len);
    }
    int rc_unlock = MPI_Win_unlock(1, s->w.win);
    if (rc != MPI_SUCCESS) return mm__verify_mpi_failed(rc, why, why_len);
    if (bad != MM_OK) return bad;
    return rc_unlock == MPI_SUCCESS ? MM_OK : mm__verify_mpi_failed(rc_unlock, why, why_len);
}

static mm_status mm__verify_origin(mm_op_args *a, mm__rma *s, void *want, char *why, size_t why_len) {
    if (mm__fetches(s)) {
        mm__rma_fill(want, a->count, a->datatype, a->type_size, MM__SALT_GET, 0);
        return mm__compare(a, s, "the values the origin fetched", a->recvbuf, s->burst, want, why, why_len);
    }
    if (s->call == MM__RMA_CAS) {
        mm__rma_fill(want, 1, a->datatype, a->type_size, s->calls >= 2 ? MM__SALT_ORIGIN : MM__SALT_TARGET, 1);
        return mm__compare(a, s, "the value compare-and-swap fetched", s->result, 1, want, why, why_len);
    }
    if (s->call == MM__RMA_GET_ACC || s->call == MM__RMA_FOP) {
        int rc = mm__expected_acc(a, s->calls - 1, want);
        if (rc != MPI_SUCCESS) return mm__verify_mpi_failed(rc, why, why_len);
        return mm__compare(a, s, "the values the origin fetched", s->result, 1, want, why, why_len);
    }
    return 0;
}

mm_status mm__verify_rma(mm_op_args *a, char *why, size_t why_len) {
    mm__rma *s = a->state;
    if (!s || s->prank < 0) return 0;
    int rc = mm__close_epoch(s);
    if (rc != MPI_SUCCESS) return mm__verify_mpi_failed(rc, why, why_len);
    if (s->calls < 1) return 0; /* nothing was moved */
    void *want = malloc((size_t)a->count * (size_t)a->type_size + 1);
    if (!want) {
        snprintf(why, why_len, "out of memory for the check after the test");
        return MM_E_FAILED;
    }
    mm_status checked = s->prank == 1 ? mm__verify_target(a, s, want, why, why_len)
                                      : mm__verify_origin(a, s, want, why, why_len);
    free(want);
    return checked;
}
