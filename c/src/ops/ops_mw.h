/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_mw.h — what the master-worker rows share (ops_mw.c, ops_mw_workpieces.c): the state the
 * master keeps, one setup and one teardown, and the service order of the workers. The
 * workpieces row differs only in its run (pieces handed out dynamically) and its check of
 * --workpieces; everything it allocates is what the other master-worker rows allocate. */
#ifndef MM_OPS_MW_H
#define MM_OPS_MW_H
#include "mm_ops.h"

typedef struct mm__mw_state {
    MPI_Request *reqs;    /* master: one per worker */
    int *done;            /* master (waitsome, workpieces): indices one MPI_Waitsome completed */
    MPI_Status *statuses; /* master: not MPI_STATUSES_IGNORE, whose MPICH value ((MPI_Status *)1)
                             trips gcc's bounds check */
    void *bsend_buf;      /* mw-bsend's master: the attached buffer (NULL otherwise) */
    int bsend_bytes;
} mm__mw_state;

/* The i-th worker (0-based) in service order: root+1, root+2, ... (mod nprocs). */
static inline int mm__mw_worker(const mm_op_args *a, int i) { return (a->root + 1 + i) % a->nprocs; }

/* The master's receive block of the i-th worker (blocks of size bytes, 1 for size 0). */
static inline void *mm__mw_block(const mm_op_args *a, int i) {
    return (unsigned char *)a->recvbuf + (size_t)i * (size_t)(a->size > 0 ? a->size : 1);
}

#endif
