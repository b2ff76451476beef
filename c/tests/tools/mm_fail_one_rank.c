/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_fail_one_rank.c — test only: mpimeter-bench (app/main.c) linked with
 * -Wl,--wrap=MPI_Allreduce,--wrap=MPI_Comm_split,--wrap=malloc,--wrap=mm_collect_sync_log (CMakeLists.txt:
 * mpimeter-bench-fail-one-rank), so that one rank fails where the others go on, as a library
 * error or an exhausted memory would make it (c/tests/mpi/test_one_rank_failures.py):
 *
 *   MM_FAIL_RANK=R MM_FAIL_AT=one-clock
 *       rank R's Allreduce of two MPI_UINT64_T (the one-clock question, bench/same_kernel.c)
 *       takes part and then returns MPI_ERR_OTHER;
 *   MM_FAIL_RANK=R MM_FAIL_AT=comm-split-N
 *       rank R's MPI_Comm_split number N (1, 2, ...: the memory check's grouping of the ranks by
 *       kernel is the first, the oversubscription check's the second; bench/same_kernel.c) takes
 *       part and then returns MPI_ERR_OTHER;
 *   MM_FAIL_RANK=R MM_FAIL_AT=sync-log-alloc-N
 *       allocation N (1, 2, ...) inside rank R's first mm_collect_sync_log (bench/collect.c)
 *       returns NULL.
 *
 * --wrap redirects the references of the objects linked here (main.c and the core library's),
 * never the MPI library's own: its allocations and collectives are untouched. Without
 * MM_FAIL_RANK the program is mpimeter-bench. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "mm_launch.h"

int __real_MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm);
int __real_MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
void *__real_malloc(size_t size);
mm_status __real_mm_collect_sync_log(mm_sync_log *log, size_t *written, FILE *f, int64_t epoch_ns,
                                     MPI_Comm comm, char *why, size_t why_len);
int __wrap_MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm);
int __wrap_MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
void *__wrap_malloc(size_t size);
mm_status __wrap_mm_collect_sync_log(mm_sync_log *log, size_t *written, FILE *f, int64_t epoch_ns,
                                     MPI_Comm comm, char *why, size_t why_len);

/* The allocation of the armed mm_collect_sync_log that fails (0: none armed), and how many it made. */
static int mm__fail_alloc, mm__allocs;
static int mm__collects, mm__splits;

/* Is this rank (of comm) the failing one, at the failure point `at`? */
static int mm__failing(MPI_Comm comm, const char *at) {
    const char *rank_text = getenv("MM_FAIL_RANK"), *where = getenv("MM_FAIL_AT");
    if (!rank_text || !where || strncmp(where, at, strlen(at)) != 0) return 0;
    int rank = -1;
    MPI_Comm_rank(comm, &rank);
    return rank == atoi(rank_text);
}

int __wrap_MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         MPI_Comm comm) {
    int rc = __real_MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    if (rc == MPI_SUCCESS && count == 2 && datatype == MPI_UINT64_T && mm__failing(comm, "one-clock"))
        return MPI_ERR_OTHER;
    return rc;
}

int __wrap_MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm) {
    int rc = __real_MPI_Comm_split(comm, color, key, newcomm);
    const char *prefix = "comm-split-";
    /* the communicator made stays (the others' copies of it include this rank): only the
     * failure is reported, as when a library fails on one rank after the collective part */
    if (rc == MPI_SUCCESS && mm__failing(comm, prefix) &&
        ++mm__splits == atoi(getenv("MM_FAIL_AT") + strlen(prefix)))
        return MPI_ERR_OTHER;
    return rc;
}

void *__wrap_malloc(size_t size) {
    if (mm__fail_alloc > 0 && ++mm__allocs == mm__fail_alloc) return NULL;
    return __real_malloc(size);
}

mm_status __wrap_mm_collect_sync_log(mm_sync_log *log, size_t *written, FILE *f, int64_t epoch_ns,
                                     MPI_Comm comm, char *why, size_t why_len) {
    const char *prefix = "sync-log-alloc-";
    if (mm__collects++ == 0 && mm__failing(comm, prefix)) {
        mm__fail_alloc = atoi(getenv("MM_FAIL_AT") + strlen(prefix));
        mm__allocs = 0;
    }
    mm_status rc = __real_mm_collect_sync_log(log, written, f, epoch_ns, comm, why, why_len);
    mm__fail_alloc = 0;
    return rc;
}
