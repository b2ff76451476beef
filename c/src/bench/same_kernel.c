/* SPDX-License-Identifier: BSD-3-Clause */
/* same_kernel.c — the ranks that share this rank's CPUs: those running on the same kernel.
 *
 * Why: whether waiting must yield the CPU (more ranks than CPUs) depends on which ranks compete
 * for the same cores, and MPI's idea of a node (MPI_COMM_TYPE_SHARED) is not that: containers or
 * network namespaces on one machine have host names of their own and talk over TCP, so MPI makes
 * each a node, yet they all run on the machine's cores. The kernel's boot id
 * (/proc/sys/kernel/random/boot_id, random per boot, the same in every namespace and container of
 * one kernel) names the machine exactly. Where some rank cannot read it (not Linux, a restricted
 * /proc), every rank falls back to MPI_COMM_TYPE_SHARED, so that all ranks split the same way.
 * Cost: one Allreduce, one Allgather of 40 bytes per rank and one Comm_split, once per launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"

enum { MM__BOOT_ID_LEN = 40 }; /* 36 characters of a UUID, padded with zeros */

/* This kernel's boot id into id (MM__BOOT_ID_LEN bytes, zero-padded); 0 on success. */
static int mm__read_boot_id(char *id) {
    memset(id, 0, MM__BOOT_ID_LEN);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f) return -1;
    size_t n = fread(id, 1, MM__BOOT_ID_LEN - 1, f);
    fclose(f);
    while (n > 0 && (id[n - 1] == '\n' || id[n - 1] == ' ')) id[--n] = '\0';
    return n > 0 ? 0 : -1;
}

int mm_comm_same_kernel(MPI_Comm comm, MPI_Comm *out, mm_mpi_error *err) {
    *out = MPI_COMM_NULL;
    int rank = 0, nprocs = 1;
    if (MM_MPI(err, MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS ||
        MM_MPI(err, MPI_Comm_size(comm, &nprocs)) != MPI_SUCCESS)
        return err->code;
#ifdef MM_SIMGRID
    /* SimGrid's SMPI runs every simulated rank inside its one process: they share this kernel
     * (and its memory) by construction. Asking would cost an Allgather, which SMPI's default
     * algorithm makes p x p concurrent messages: minutes of simulator time at 256 ranks. */
    return MM_MPI(err, MPI_Comm_dup(comm, out));
#endif
    char id[MM__BOOT_ID_LEN];
    int readable = mm__read_boot_id(id) == 0, all_readable = 0;
    int rc = MM_MPI(err, MPI_Allreduce(&readable, &all_readable, 1, MPI_INT, MPI_MIN, comm));
    if (rc != MPI_SUCCESS) return rc;
    if (!all_readable)
        return MM_MPI(err, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, out));
    char *ids = malloc((size_t)nprocs * MM__BOOT_ID_LEN);
    int ok = ids != NULL;
    if (!mm_all_ok(comm, ok)) {
        free(ids);
        return MM_MPI(err, MPI_ERR_NO_MEM);
    }
    rc = MM_MPI(err, MPI_Allgather(id, MM__BOOT_ID_LEN, MPI_CHAR, ids, MM__BOOT_ID_LEN, MPI_CHAR, comm));
    int color = rank;
    for (int r = 0; rc == MPI_SUCCESS && r < nprocs; r++) {
        if (memcmp(ids + (size_t)r * MM__BOOT_ID_LEN, id, MM__BOOT_ID_LEN) == 0) {
            color = r; /* the lowest rank on this kernel names the group */
            break;
        }
    }
    free(ids);
    if (rc != MPI_SUCCESS) return rc;
    return MM_MPI(err, MPI_Comm_split(comm, color, rank, out));
}
