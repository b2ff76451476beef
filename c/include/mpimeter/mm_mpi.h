/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_mpi.h — one convention for MPI errors. The benchmark's communicators return errors
 * (MPI_ERRORS_RETURN) instead of aborting; every MPI call's return code goes through MM_MPI, which
 * keeps the first failure (the call and the library's error string) in an mm_mpi_error, so that a
 * failing call inside a test marks that test failed in meta.json and the launch can go on. One
 * helper tells whether something held on every rank; two wait without holding a CPU. */
#ifndef MM_MPI_H
#define MM_MPI_H
#include <mpi.h>
#include <stddef.h>

typedef struct mm_mpi_error {
    int code;       /* the first failure's MPI error code; MPI_SUCCESS while none */
    char call[48];  /* "MPI_Bcast" */
    char text[256]; /* MPI_Error_string of the code */
} mm_mpi_error;

/* Records rc in e when it is the first failure (e may be NULL: nothing is recorded); returns rc.
 * call_text is the call as written ("MPI_Bcast(buf, ...)"); its name up to '(' is kept. */
int mm_mpi_check(mm_mpi_error *e, int rc, const char *call_text);
#define MM_MPI(e, call) mm_mpi_check((e), (call), #call)

void mm_mpi_error_clear(mm_mpi_error *e);
static inline int mm_mpi_failed(const mm_mpi_error *e) { return e->code != MPI_SUCCESS; }
/* "MPI_Bcast: MPI_ERR_COUNT: invalid count argument" (or "" without a failure). */
void mm_mpi_error_format(const mm_mpi_error *e, char *out, size_t len);

/* Errors on comm return to the caller instead of aborting the job. */
int mm_mpi_errors_return(MPI_Comm comm);

/* Collective: 1 when `ok` holds on every rank of comm, 0 when it fails somewhere or when the
 * agreement itself fails (then every rank that could answer returns 0). */
int mm_all_ok(MPI_Comm comm, int ok);

/* Waits for req by polling with short sleeps (mpi_wait.c), not in a blocking call, which MPI
 * libraries spin in: a rank that only waits then leaves its CPU to the ranks it waits for. Up to
 * 1 ms late; for waits outside any timed region. MPI_SUCCESS or the error. */
int mm_wait_sleeping(MPI_Request *req);
/* Collective: a barrier waited for so (MPI_Ibarrier, then mm_wait_sleeping). */
int mm_barrier_sleeping(MPI_Comm comm);

#endif
