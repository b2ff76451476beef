/* SPDX-License-Identifier: BSD-3-Clause */
/* pgmpi.c — libmpimeter-pgmpi.so: a PMPI interposition library (LD_PRELOAD) that runs a
 * collective's mock-up in its place where a performance guideline was violated, for the sizes
 * and process counts its configuration names, and the collective itself elsewhere.
 * What: MPI_Init and MPI_Init_thread read MPIMETER_PGMPI_CONFIG (pgmpi_config.c) after the
 * library's own initialization; a bad or missing configuration prints one line (rank 0's, or
 * the first failing rank's) and every rank exits with 2 (after MPI_Finalize): a launch never runs
 * with a configuration only half understood. MPI_Allreduce looks up the route of (communicator size, count x datatype
 * size) and runs its composition (c/src/ops/mockup_compose.c, the code the mock-up ops time),
 * or PMPI_Allreduce. Intercommunicators and calls without a route go to the original.
 * mpimeter_pgmpi_active() reports the configuration and the calls routed (mm_pgmpi.h): the
 * launch records it.
 * Why global state: an interposition library has no context to pass; the configuration is
 * written once, in MPI_Init, before any other call of the application. The call counters are
 * plain integers: exact for the single-threaded callers mpimeter-bench is, approximate under
 * MPI_THREAD_MULTIPLE (the routing itself reads only).
 * Cost: per intercepted call two PMPI queries (communicator size, datatype size) and a scan
 * of at most MM_PGMPI_MAX_ROUTES routes; a routed allreduce-as-rs-allgatherv allocates its
 * share and its split per call, outside any timing the application does not own.
 * Paper: Hunold, Carpen-Amarie, Lübbe & Träff 2016 (PGMPI: "guideline-driven" replacement,
 * PGMPITuneLib), which does the same through the profiling interface. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_pgmpi.h"
#include "mockup_compose.h"
#include "pgmpi_config.h"

#define MM__EXPORT __attribute__((visibility("default")))

static mm_pgmpi_route mm__routes[MM_PGMPI_MAX_ROUTES];
static mm_pgmpi_report mm__report = {.routes = mm__routes};
static int mm__ready;

MM__EXPORT const mm_pgmpi_report *mpimeter_pgmpi_active(void) { return mm__ready ? &mm__report : NULL; }

/* After the library's own MPI_Init: the configuration on every rank; where a rank could not read
 * it, the first such rank (rank 0 when all fail alike) prints its one line, and every rank
 * finalizes and exits with 2. Not MPI_Abort: MPICH's launcher tears the job down before it has
 * forwarded what a rank wrote just before, and the one line was lost. */
static int mm__configure(int rc) {
    if (rc != MPI_SUCCESS) return rc;
    char err[768];
    const char *path = getenv(MM_PGMPI_CONFIG_ENV);
    int rank = 0, first_failed = INT_MAX;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int failed = mm_pgmpi_read_config(path, mm__routes, &mm__report.nroutes, &mm__report.config_fnv1a64, err,
                                      sizeof err) != 0;
    int mine = failed ? rank : INT_MAX;
    PMPI_Allreduce(&mine, &first_failed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first_failed == INT_MAX) {
        mm__report.config_path = path;
        mm__ready = 1;
        return rc;
    }
    if (rank == first_failed) {
        fprintf(stderr, "libmpimeter-pgmpi: %s\n", err);
        fflush(stderr);
    }
    PMPI_Finalize();
    exit(2);
}

MM__EXPORT int MPI_Init(int *argc, char ***argv) { return mm__configure(PMPI_Init(argc, argv)); }

MM__EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    return mm__configure(PMPI_Init_thread(argc, argv, required, provided));
}

/* The route of op's call on comm with count elements of datatype; -1 when none. */
static int mm__route_of(const char *op, int count, MPI_Datatype datatype, MPI_Comm comm) {
    int inter = 0, nprocs = 0, type_size = 0;
    if (!mm__ready || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter) return -1;
    if (PMPI_Comm_size(comm, &nprocs) != MPI_SUCCESS || PMPI_Type_size(datatype, &type_size) != MPI_SUCCESS)
        return -1;
    int64_t bytes = (int64_t)count * type_size;
    for (int i = 0; i < mm__report.nroutes; i++) {
        const mm_pgmpi_route *r = &mm__routes[i];
        if (r->nprocs == nprocs && bytes >= r->min_bytes && bytes <= r->max_bytes && !strcmp(r->op, op)) return i;
    }
    return -1;
}

/* allreduce-as-rs-allgatherv with its temporaries for this call; when they cannot be allocated
 * the original runs (the same result). */
static int mm__allreduce_rs_allgatherv(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                                       MPI_Op op, MPI_Comm comm) {
    int nprocs = 0, rank = 0;
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    PMPI_Comm_size(comm, &nprocs);
    PMPI_Comm_rank(comm, &rank);
    PMPI_Type_get_extent(datatype, &lb, &extent);
    PMPI_Type_get_true_extent(datatype, &true_lb, &true_extent);
    int *counts = malloc(2 * (size_t)nprocs * sizeof(int));
    void *block = NULL;
    if (counts) {
        mm_compose_split(count, nprocs, counts, counts + nprocs);
        int mine = counts[rank] > 0 ? counts[rank] : 1;
        block = malloc((size_t)true_extent + (size_t)(mine - 1) * (size_t)extent);
    }
    int rc = block ? mm_compose_allreduce_rs_allgatherv(sendbuf, recvbuf, datatype, op, comm, rank, counts,
                                                        counts + nprocs, (unsigned char *)block - true_lb)
                   : PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    free(block);
    free(counts);
    return rc;
}

MM__EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                             MPI_Comm comm) {
    int i = mm__route_of("allreduce", count, datatype, comm);
    if (i < 0) {
        if (mm__ready) mm__report.original_calls++;
        return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    }
    mm__routes[i].calls++;
    if (!strcmp(mm__routes[i].mockup, "allreduce-as-reduce-bcast")) {
        int rank = 0;
        PMPI_Comm_rank(comm, &rank);
        return mm_compose_allreduce_reduce_bcast(sendbuf, recvbuf, count, datatype, op, comm, rank);
    }
    return mm__allreduce_rs_allgatherv(sendbuf, recvbuf, count, datatype, op, comm);
}
