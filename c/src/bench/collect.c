/* SPDX-License-Identifier: BSD-3-Clause */
/* collect.c — moving what ranks recorded to rank 0, which alone writes files. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_error.h"
#include "mm_output.h"

/* Collective: did rank 0 get its buffer (held: its own answer; the other ranks pass 1)? When not,
 * rank 0 says what it could not allocate and every rank returns MM_E_NOMEM, so that none goes on
 * to a gather that rank 0 cannot receive. */
static mm_status mm__rank0_holds(int held, MPI_Comm comm, const char *what, char *why, size_t why_len) {
    if (mm_all_ok(comm, held)) return MM_OK;
    if (!held) mm_error_set(why, why_len, "out of memory for %s", what);
    return MM_E_NOMEM;
}

/* Counts travel in records, not bytes (a record is one MPI datatype), and their sum is checked in
 * 64 bits: byte counts in int overflowed past 2 GiB of records gathered at once. */
mm_status mm_collect_sync_log(mm_sync_log *log, size_t *written, FILE *f, int64_t epoch_ns, MPI_Comm comm,
                              char *why, size_t why_len) {
    if (why && why_len) why[0] = '\0';
    mm_mpi_error e;
    mm_mpi_error_clear(&e);
    int rank = 0, nprocs = 1;
    MM_MPI(&e, MPI_Comm_rank(comm, &rank));
    MM_MPI(&e, MPI_Comm_size(comm, &nprocs));
    size_t pending = log->n - *written;
    int mine = pending > INT_MAX ? -1 : (int)pending;
    int *counts = NULL, *displs = NULL;
    char *all = NULL;
    int64_t total = 0;
    MPI_Datatype record = MPI_DATATYPE_NULL;
    MM_MPI(&e, MPI_Type_contiguous((int)sizeof(mm_sync_record), MPI_BYTE, &record));
    MM_MPI(&e, MPI_Type_commit(&record));
    if (rank == 0) {
        counts = malloc((size_t)nprocs * sizeof *counts);
        displs = malloc((size_t)nprocs * sizeof *displs);
    }
    mm_status rc = mm__rank0_holds(rank != 0 || (counts && displs), comm,
                                   "the counts of the clock sync's records", why, why_len);
    if (rc == MM_OK) {
        MM_MPI(&e, MPI_Gather(&mine, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
        int fits = 1;
        for (int r = 0; rank == 0 && r < nprocs; r++) {
            int count = mm_mpi_failed(&e) ? 0 : counts[r];
            if (count < 0 || total + count > INT_MAX) fits = 0;
            displs[r] = fits ? (int)total : 0;
            total += fits ? count : 0;
        }
        if (rank == 0 && !fits) mm_error_set(why, why_len, "more clock sync records than one gather holds (%d)", INT_MAX);
        if (rank == 0 && fits) all = malloc(total > 0 ? (size_t)total * sizeof(mm_sync_record) : 1);
        rc = mm__rank0_holds(rank != 0 || all || !fits, comm, "the clock sync's records", why, why_len);
        if (rc == MM_OK && !mm_all_ok(comm, rank != 0 || fits)) rc = MM_E_FAILED;
    }
    if (rc == MM_OK) {
        MM_MPI(&e, MPI_Gatherv(log->rec + *written, mine, record, all, counts, displs, record, 0, comm));
        *written = log->n;
        if (mm_mpi_failed(&e)) {
            char what[sizeof e.call + sizeof e.text + 2];
            mm_mpi_error_format(&e, what, sizeof what);
            rc = mm_error_set(why, why_len, "collecting the clock sync's records: %s", what);
        }
        size_t nrec = (size_t)total;
        if (rc == MM_OK && rank == 0 && f && total > 0 &&
            mm_sync_write(f, (const mm_sync_record *)all, nrec, epoch_ns) != 0)
            rc = mm_error_set(why, why_len, "cannot write %zu records to sync.csv: %s", nrec, strerror(errno));
        /* every rank the same status: one that failed here said why, the others did not fail */
        if (!mm_all_ok(comm, rc == MM_OK)) rc = MM_E_FAILED;
    }
    if (record != MPI_DATATYPE_NULL) MPI_Type_free(&record);
    free(counts);
    free(displs);
    free(all);
    return rc;
}
