/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_check.c — the MPI error convention of mm_mpi.h: first failure kept with its call and the
 * library's own words, errors returned instead of aborting, and one "all ranks agree" helper. */
#include <stdio.h>
#include <string.h>

#include "mm_mpi.h"

int mm_mpi_check(mm_mpi_error *e, int rc, const char *call_text) {
    if (rc == MPI_SUCCESS || !e || e->code != MPI_SUCCESS) return rc;
    e->code = rc;
    size_t n = strcspn(call_text, "( ");
    if (n >= sizeof e->call) n = sizeof e->call - 1;
    memcpy(e->call, call_text, n);
    e->call[n] = '\0';
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS || len <= 0)
        snprintf(text, sizeof text, "MPI error code %d", rc);
    else
        text[len < MPI_MAX_ERROR_STRING ? len : MPI_MAX_ERROR_STRING - 1] = '\0';
    /* one line: some libraries end their strings with a newline */
    for (char *p = text; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    /* MPICH's strings can be long: keep what fits */
    size_t keep = strlen(text) < sizeof e->text ? strlen(text) : sizeof e->text - 1;
    memcpy(e->text, text, keep);
    e->text[keep] = '\0';
    return rc;
}

void mm_mpi_error_clear(mm_mpi_error *e) { memset(e, 0, sizeof *e); }

void mm_mpi_error_format(const mm_mpi_error *e, char *out, size_t len) {
    if (e->code == MPI_SUCCESS)
        snprintf(out, len, "%s", "");
    else
        snprintf(out, len, "%s: %s", e->call, e->text);
}

int mm_mpi_errors_return(MPI_Comm comm) {
    return MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
}

int mm_all_ok(MPI_Comm comm, int ok) {
    int mine = ok ? 1 : 0, all = 0;
    if (MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS) return 0;
    return all;
}
