/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_nbc.c — the nonblocking collectives (MPI-3 §5.12): their I-calls, the one timed call they
 * share, and the work-based scheme's workload and its calibration.
 *
 * What: each nonblocking row reuses the buffers of its blocking twin (setup and teardown of
 * ops_coll.c) and adds its I-call as args->nbc->post. The timed call (mm__run_nbc) is, in the
 * blocking phase, the I-call followed at once by MPI_Wait; in the overlap phase, the I-call, then
 * the computation of t_b split into ntests + 1 equal parts with one MPI_Test between two parts,
 * then MPI_Wait. It leaves three instants and the time spent in MPI_Test in args->nbc; the loop
 * turns them into init/test/wait/compute components after its end timestamp.
 * Why: NBCBench (Hoefler, Schneider & Lumsdaine 2010 §4) measures the CPU time the caller loses
 * (overhead = init + test + wait) against the time the blocking operation takes, with a
 * time-based computation (busy wait on the timer, §4.1) or a work-based one calibrated to take
 * t_b when run alone (§4.1: interrupts and progress threads that steal cycles from the
 * computation then show up as a longer computation instead of being hidden), and with MPI_Test
 * calls spaced through the computation to let a library without asynchronous progress advance
 * (§4.2).
 * Cost: the timed call takes about init + t_b + wait; each MPI_Test costs two timer reads. */
#include <stdlib.h>

#include "mm_ops.h"
#include "mm_timer.h"
#include "ops_internal.h"

/* ---- the I-calls, argument for argument as their blocking twins in ops_coll.c ---- */
static int mm__post_ibarrier(const mm_op_args *a, MPI_Request *r) { return MPI_Ibarrier(a->comm, r); }
static int mm__post_ibcast(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ibcast(a->sendbuf, a->count, a->datatype, a->root, a->comm, r);
}
static int mm__post_igather(const mm_op_args *a, MPI_Request *r) {
    return MPI_Igather(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype,
                       a->root, a->comm, r);
}
static int mm__post_igatherv(const mm_op_args *a, MPI_Request *r) {
    return MPI_Igatherv(a->sendbuf, a->count, a->datatype, a->recvbuf, a->recvcounts, a->rdispls,
                        a->datatype, a->root, a->comm, r);
}
static int mm__post_iscatter(const mm_op_args *a, MPI_Request *r) {
    return MPI_Iscatter(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype,
                        a->root, a->comm, r);
}
static int mm__post_iscatterv(const mm_op_args *a, MPI_Request *r) {
    return MPI_Iscatterv(a->sendbuf, a->sendcounts, a->sdispls, a->datatype, a->recvbuf, a->count,
                         a->datatype, a->root, a->comm, r);
}
static int mm__post_iallgather(const mm_op_args *a, MPI_Request *r) {
    return MPI_Iallgather(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype,
                          a->comm, r);
}
static int mm__post_iallgatherv(const mm_op_args *a, MPI_Request *r) {
    return MPI_Iallgatherv(a->sendbuf, a->count, a->datatype, a->recvbuf, a->recvcounts,
                           a->rdispls, a->datatype, a->comm, r);
}
static int mm__post_ialltoall(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ialltoall(a->sendbuf, a->count, a->datatype, a->recvbuf, a->count, a->datatype,
                         a->comm, r);
}
static int mm__post_ialltoallv(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ialltoallv(a->sendbuf, a->sendcounts, a->sdispls, a->datatype, a->recvbuf,
                          a->recvcounts, a->rdispls, a->datatype, a->comm, r);
}
static int mm__post_ireduce(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ireduce(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->root,
                       a->comm, r);
}
static int mm__post_iallreduce(const mm_op_args *a, MPI_Request *r) {
    return MPI_Iallreduce(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->comm, r);
}
static int mm__post_ireduce_scatter(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ireduce_scatter(a->sendbuf, a->recvbuf, a->recvcounts, a->datatype, a->reduce_op,
                               a->comm, r);
}
static int mm__post_ireduce_scatter_block(const mm_op_args *a, MPI_Request *r) {
    return MPI_Ireduce_scatter_block(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op,
                                     a->comm, r);
}
static int mm__post_iscan(const mm_op_args *a, MPI_Request *r) {
    return MPI_Iscan(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->comm, r);
}
static int mm__post_iexscan(const mm_op_args *a, MPI_Request *r) {
    return MPI_Iexscan(a->sendbuf, a->recvbuf, a->count, a->datatype, a->reduce_op, a->comm, r);
}

MM__NBC_SETUP(barrier)
MM__NBC_SETUP(bcast)
MM__NBC_SETUP(gather)
MM__NBC_SETUP(gatherv)
MM__NBC_SETUP(scatter)
MM__NBC_SETUP(scatterv)
MM__NBC_SETUP(allgather)
MM__NBC_SETUP(allgatherv)
MM__NBC_SETUP(alltoall)
MM__NBC_SETUP(alltoallv)
MM__NBC_SETUP(reduce)
MM__NBC_SETUP(allreduce)
MM__NBC_SETUP(reduce_scatter)
MM__NBC_SETUP(reduce_scatter_block)
MM__NBC_SETUP(scan)
MM__NBC_SETUP(exscan)

/* ---- the workload ---- */

static volatile double mm__work_sink; /* the work's result goes somewhere the compiler must keep */

double mm_nbc_work(long units) {
    /* 8 doubles = one cache line: the work is arithmetic, not memory traffic that would compete
     * with the library's copies */
    double v[8] = {1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7};
    for (long u = 0; u < units; u++)
        for (int i = 0; i < 8; i++) v[i] = v[i] * 0.999999 + 1e-7;
    double s = 0;
    for (int i = 0; i < 8; i++) s += v[i];
    mm__work_sink = s;
    return s;
}

static int mm__cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int64_t mm__time_work(const mm_timer *timer, long units) {
    int64_t t0 = mm_timer_now(timer);
    mm_nbc_work(units);
    return mm_timer_now(timer) - t0;
}

static int64_t mm__median_work(const mm_timer *timer, long units) {
    int64_t runs[5];
    for (int i = 0; i < 5; i++) runs[i] = mm__time_work(timer, units);
    qsort(runs, 5, sizeof runs[0], mm__cmp_i64);
    return runs[2];
}

long mm_nbc_calibrate(const mm_timer *timer, int64_t target_ns, int64_t *measured_ns) {
    if (target_ns <= 0) {
        if (measured_ns) *measured_ns = 0;
        return 0;
    }
    long units = 16;
    int64_t t = mm__time_work(timer, units);
    while (t < target_ns / 4 && units < (1L << 40)) {
        units *= 2;
        t = mm__time_work(timer, units);
    }
    for (int round = 0; round < 2; round++) {
        int64_t med = mm__median_work(timer, units);
        if (med <= 0) break;
        double scaled = (double)units * (double)target_ns / (double)med;
        units = scaled < 1 ? 1 : (long)(scaled + 0.5);
    }
    if (measured_ns) *measured_ns = mm__median_work(timer, units);
    return units;
}

/* ---- the timed call ---- */

int mm__run_nbc(const mm_op_args *a) {
    mm_nbc *s = a->nbc;
    int rc = s->post(a, &s->req);
    if (rc != MPI_SUCCESS) return rc;
    if (s->phase == MM_NBC_BLOCKING) return MPI_Wait(&s->req, MPI_STATUS_IGNORE);
    const mm_timer *timer = a->timer;
    int64_t now = mm_timer_now(timer);
    s->posted_ns = now;
    s->test_ns = 0;
    const int parts = s->ntests + 1;
    for (int part = 0; part < parts; part++) {
        if (s->work_scheme) {
            /* the units are split as evenly as the integers allow */
            long units = s->work_units / parts + (part < s->work_units % parts);
            mm_nbc_work(units);
        } else {
            int64_t len = s->compute_ns / parts + (part < s->compute_ns % parts);
            mm_timer_wait_until(timer, now + len);
        }
        if (part + 1 == parts) break;
        int64_t before = mm_timer_now(timer);
        int done = 0;
        rc = MPI_Test(&s->req, &done, MPI_STATUS_IGNORE);
        now = mm_timer_now(timer);
        s->test_ns += now - before;
        if (rc != MPI_SUCCESS) return rc;
    }
    s->wait_entered_ns = mm_timer_now(timer);
    return MPI_Wait(&s->req, MPI_STATUS_IGNORE);
}

void mm__nbc_teardown(mm_op_args *a) {
    /* a request still active here belongs to a call that failed midway: it is left to MPI (a
     * nonblocking collective cannot be cancelled) */
    if (a->nbc) a->nbc->post = NULL;
    mm__coll_teardown(a);
}
