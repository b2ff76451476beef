/* SPDX-License-Identifier: BSD-3-Clause */
/* collect.c — moving what ranks recorded to rank 0, which alone writes files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_error.h"
#include "mm_output.h"

mm_status mm_collect_sync_log(mm_sync_log *log, size_t *written, FILE *f, int64_t epoch_ns, MPI_Comm comm,
                              char *why, size_t why_len) {
    mm_mpi_error e;
    mm_mpi_error_clear(&e);
    int rank = 0, nprocs = 1;
    MM_MPI(&e, MPI_Comm_rank(comm, &rank));
    MM_MPI(&e, MPI_Comm_size(comm, &nprocs));
    int mine = (int)(log->n - *written);
    int nbytes = mine * (int)sizeof(mm_sync_record);
    int *counts = NULL, *displs = NULL;
    char *all = NULL;
    int total = 0;
    if (rank == 0) {
        counts = malloc((size_t)nprocs * sizeof *counts);
        displs = malloc((size_t)nprocs * sizeof *displs);
    }
    MM_MPI(&e, MPI_Gather(&nbytes, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
    if (rank == 0) {
        for (int r = 0; r < nprocs; r++) {
            displs[r] = total;
            total += counts[r];
        }
        all = malloc(total > 0 ? (size_t)total : 1);
    }
    MM_MPI(&e, MPI_Gatherv(log->rec + *written, nbytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm));
    *written = log->n;
    mm_status rc = MM_OK;
    if (mm_mpi_failed(&e)) {
        char what[sizeof e.call + sizeof e.text + 2];
        mm_mpi_error_format(&e, what, sizeof what);
        rc = mm_error_set(why, why_len, "collecting the clock sync's records: %s", what);
    }
    size_t nrec = (size_t)total / sizeof(mm_sync_record);
    if (rc == MM_OK && rank == 0 && f && total > 0 && mm_sync_write(f, (const mm_sync_record *)all, nrec, epoch_ns) != 0)
        rc = mm_error_set(why, why_len, "cannot write %zu records to sync.csv: %s", nrec, strerror(errno));
    free(counts);
    free(displs);
    free(all);
    return rc;
}
