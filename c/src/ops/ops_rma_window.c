/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_rma_window.c — the four kinds of MPI window the one-sided ops use (--rma-window), made and
 * freed in one place: MPI_Win_create over memory the caller allocated, MPI_Win_allocate,
 * MPI_Win_allocate_shared, and a dynamic window (MPI_Win_create_dynamic + MPI_Win_attach of
 * memory the caller allocated).
 *
 * What: mm__rma_win_prepare allocates what the library does not (create, dynamic) outside any
 *   timed region; mm__rma_win_make is only the MPI calls that make the window (what the
 *   rma-win-create row times); mm__rma_win_unmake only those that free it (rma-win-free);
 *   mm__rma_win_release frees the caller's memory. Windows get MPI_ERRORS_RETURN, as the
 *   launch's communicator has: a failing call fails its test instead of aborting the job.
 * Why: the window kind changes what a put costs (registered or shared memory, the address
 *   translation of dynamic windows); OSU's -w create/allocate/dynamic and IMB-RMA measure it.
 * Placement: MPI_Win_allocate_shared needs every rank of the communicator on one
 *   shared-memory node (MPI-3.1 §11.2.3); mm_rma_check_placement says so before a launch writes
 *   anything.
 * Cost: creation and free are collective over the window's communicator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

mm_status mm__rma_win_prepare(mm__rma_win *w, int kind, int64_t bytes, mm_op_args *a) {
    memset(w, 0, sizeof *w);
    w->win = MPI_WIN_NULL;
    w->kind = kind;
    w->bytes = bytes;
    if (kind == MM_RMA_WIN_CREATE || kind == MM_RMA_WIN_DYNAMIC) {
        w->owned = calloc(1, bytes > 0 ? (size_t)bytes : 1);
        if (!w->owned) return mm__setup_no_memory(a, "the window's memory", bytes);
        w->base = w->owned;
    }
    return 0;
}

/* The MPI call that makes a window of this kind, as a failure names it. */
static const char *mm__rma_win_call(const mm__rma_win *w) {
    switch (w->kind) {
    case MM_RMA_WIN_ALLOCATE: return "MPI_Win_allocate";
    case MM_RMA_WIN_ALLOCATE_SHARED: return "MPI_Win_allocate_shared";
    case MM_RMA_WIN_DYNAMIC: return "MPI_Win_create_dynamic/MPI_Win_attach";
    default: return "MPI_Win_create";
    }
}

mm_status mm__rma_win_open(mm__rma_win *w, int kind, int64_t bytes, MPI_Comm comm, mm_op_args *a) {
    if (mm__rma_win_prepare(w, kind, bytes, a) != 0) return MM_E_FAILED;
    int rc = mm__setup_mpi_check(a, mm__rma_win_make(w, comm), mm__rma_win_call(w));
    if (rc == MPI_SUCCESS) rc = mm__setup_mpi_check(a, mm__rma_win_errors_return(w), "MPI_Win_set_errhandler");
    return rc == MPI_SUCCESS ? 0 : MM_E_FAILED;
}

int mm__rma_win_make(mm__rma_win *w, MPI_Comm comm) {
    int rc;
    switch (w->kind) {
    case MM_RMA_WIN_CREATE:
        rc = MPI_Win_create(w->owned, (MPI_Aint)w->bytes, 1, MPI_INFO_NULL, comm, &w->win);
        break;
    case MM_RMA_WIN_ALLOCATE:
        rc = MPI_Win_allocate((MPI_Aint)w->bytes, 1, MPI_INFO_NULL, comm, &w->base, &w->win);
        break;
    case MM_RMA_WIN_ALLOCATE_SHARED:
        rc = MPI_Win_allocate_shared((MPI_Aint)w->bytes, 1, MPI_INFO_NULL, comm, &w->base, &w->win);
        break;
    case MM_RMA_WIN_DYNAMIC:
        rc = MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &w->win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_attach(w->win, w->owned, (MPI_Aint)(w->bytes > 0 ? w->bytes : 1));
        break;
    default: return MPI_ERR_ARG;
    }
    return rc;
}

int mm__rma_win_errors_return(mm__rma_win *w) {
    return MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
}

int mm__rma_win_unmake(mm__rma_win *w) {
    if (w->win == MPI_WIN_NULL) return MPI_SUCCESS;
    int rc = MPI_SUCCESS;
    if (w->kind == MM_RMA_WIN_DYNAMIC) rc = MPI_Win_detach(w->win, w->owned);
    int rc_free = MPI_Win_free(&w->win);
    w->win = MPI_WIN_NULL;
    if (w->kind != MM_RMA_WIN_CREATE && w->kind != MM_RMA_WIN_DYNAMIC) w->base = NULL;
    return rc != MPI_SUCCESS ? rc : rc_free;
}

void mm__rma_win_release(mm__rma_win *w) {
    if (w->win != MPI_WIN_NULL) mm__rma_win_unmake(w);
    free(w->owned);
    w->owned = w->base = NULL;
}

mm_status mm_rma_check_placement(int window_kind, MPI_Comm comm, char *why, size_t why_len) {
    if (window_kind != MM_RMA_WIN_ALLOCATE_SHARED) return 0;
    int nprocs = 0, nlocal = 0;
    MPI_Comm node = MPI_COMM_NULL;
    int rc = MPI_Comm_size(comm, &nprocs);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(node, &nlocal);
    /* every rank must agree: a rank alone on its node sees 1, the others more */
    int smallest = nlocal;
    if (rc == MPI_SUCCESS) rc = MPI_Allreduce(&nlocal, &smallest, 1, MPI_INT, MPI_MIN, comm);
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS) {
        mm_mpi_error e; /* the library's words for rc */
        mm_mpi_error_clear(&e);
        mm_mpi_check(&e, rc, "MPI");
        return mm_error_set(why, why_len, "MPI failed checking where the ranks run: %s", e.text);
    }
    if (smallest == nprocs) return 0;
    snprintf(why, why_len,
             "--rma-window allocate-shared: MPI_Win_allocate_shared needs every rank on one "
             "shared-memory node, and the %d ranks of this launch span more than one (the "
             "smallest node holds %d); allowed here: create, allocate, dynamic",
             nprocs, smallest);
    return MM_E_INPUT;
}
