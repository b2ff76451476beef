/* SPDX-License-Identifier: BSD-3-Clause */
/* mockup_compose.c — the allreduce mock-ups' compositions, shared by the op table's mock-up
 * rows (ops_mockups.c) and by libmpimeter-pgmpi.so, which compiles this
 * file too: the time a campaign measures for the mock-up is the time of the code the library
 * runs in its place.
 * What: each function is one composition on raw MPI arguments (buffers, count, datatype, op,
 * communicator) and caller-provided temporaries; no allocation, no state.
 * Why PMPI_: under the preloaded library MPI_Reduce_scatter and the others may themselves be
 * intercepted; the profiling names reach the MPI library's own implementation directly (MPI
 * 4.0 §15.2), so a composition never recurses into a route. Without the library PMPI_X and
 * MPI_X are the same call.
 * In place: sendbuf == MPI_IN_PLACE means the input is in recvbuf, as for MPI_Allreduce.
 * Cost: allreduce-as-reduce-bcast: the two collectives; allreduce-as-rs-allgatherv: a
 * reduce_scatter of count elements and an allgatherv of count elements — Rabenseifner's
 * allreduce in two standard calls.
 * Paper: Hunold, Carpen-Amarie, Lübbe & Träff 2016 (PGMPI), the mock-up Allreduce ⪯
 * Reduce_scatter + Allgatherv; Träff, Gropp & Thakur 2010 for Allreduce ⪯ Reduce + Bcast. */
#include "mockup_compose.h"

void mm_compose_split(int count, int nprocs, int *counts, int *displs) {
    for (int i = 0, at = 0; i < nprocs; i++) {
        counts[i] = count / nprocs + (i < count % nprocs ? 1 : 0);
        displs[i] = at;
        at += counts[i];
    }
}

int mm_compose_allreduce_reduce_bcast(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm, int rank) {
    /* in place: the root reduces in place, the others send what recvbuf holds */
    const void *in = sendbuf == MPI_IN_PLACE && rank != 0 ? recvbuf : sendbuf;
    int rc = PMPI_Reduce(in, recvbuf, count, datatype, op, 0, comm);
    if (rc != MPI_SUCCESS) return rc;
    return PMPI_Bcast(recvbuf, count, datatype, 0, comm);
}

int mm_compose_allreduce_rs_allgatherv(const void *sendbuf, void *recvbuf, MPI_Datatype datatype, MPI_Op op,
                                       MPI_Comm comm, int rank, const int *counts, const int *displs,
                                       void *block) {
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    int rc = PMPI_Reduce_scatter(in, block, counts, datatype, op, comm);
    if (rc != MPI_SUCCESS) return rc;
    return PMPI_Allgatherv(block, counts[rank], datatype, recvbuf, counts, displs, datatype, comm);
}
