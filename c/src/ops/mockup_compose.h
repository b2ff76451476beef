/* SPDX-License-Identifier: BSD-3-Clause */
/* mockup_compose.h — the compositions that both the mock-up ops (ops_mockups.c, timed by
 * mpimeter-bench) and the interposition library libmpimeter-pgmpi.so run: one
 * copy of each, on raw MPI arguments, calling PMPI_ so that a preloaded library never routes
 * a composition's own steps again (see mockup_compose.c). */
#ifndef MM_MOCKUP_COMPOSE_H
#define MM_MOCKUP_COMPOSE_H
#include <mpi.h>

/* counts[i], displs[i] (nprocs each): count elements split into nprocs blocks, count/nprocs
 * each and one more for the first count % nprocs (MPI_Reduce_scatter's usual split). */
void mm_compose_split(int count, int nprocs, int *counts, int *displs);

/* allreduce as MPI_Reduce to root 0, then MPI_Bcast from root 0 (sendbuf may be MPI_IN_PLACE). */
int mm_compose_allreduce_reduce_bcast(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                                      MPI_Op op, MPI_Comm comm, int rank);

/* allreduce as MPI_Reduce_scatter of the split (counts, displs: mm_compose_split), then
 * MPI_Allgatherv of the shares; block holds counts[rank] elements (sendbuf may be MPI_IN_PLACE). */
int mm_compose_allreduce_rs_allgatherv(const void *sendbuf, void *recvbuf, MPI_Datatype datatype, MPI_Op op,
                                       MPI_Comm comm, int rank, const int *counts, const int *displs,
                                       void *block);

#endif
