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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_error.h"

enum { MM__BOOT_ID_LEN = 40 }; /* 36 characters of a UUID, padded with zeros */

/* This kernel's boot id into id (MM__BOOT_ID_LEN bytes, zero-padded); 0 on success. */
static mm_status mm__read_boot_id(char *id) {
    memset(id, 0, MM__BOOT_ID_LEN);
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f) return MM_E_FAILED;
    size_t n = fread(id, 1, MM__BOOT_ID_LEN - 1, f);
    fclose(f);
    while (n > 0 && (id[n - 1] == '\n' || id[n - 1] == ' ')) id[--n] = '\0';
    return n > 0 ? 0 : MM_E_FAILED;
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

#ifndef MM_SIMGRID
/* FNV-1a over a file's first bytes (absent or unreadable: nothing), into *h. */
static void mm__hash_file(const char *path, uint64_t *h) {
    FILE *f = fopen(path, "r");
    if (!f) return;
    unsigned char buf[512];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    for (size_t i = 0; i < n; i++) *h = (*h ^ buf[i]) * 0x100000001b3ULL;
}
#endif

/* One clock for every rank: each reads the kernel's clock of one kernel (one boot id) through
 * one time namespace (Linux lets a time namespace offset CLOCK_MONOTONIC; its offsets are in
 * /proc/self/timens_offsets, absent where the kernel has none). Then the clocks agree by
 * construction and no clock sync can improve them (CLOCKSYNC: "none" is correct on one host).
 * A rank that cannot read its boot id makes the answer no. SimGrid's simulated hosts: no, so
 * that a simulated cluster syncs as a real one would. Cost: two Allreduces of 8 bytes, made by
 * every rank whatever fails (mm_bench.h). */
int mm_comm_one_clock(MPI_Comm comm, int *one, mm_mpi_error *err) {
    *one = 0;
#ifdef MM_SIMGRID
    (void)comm, (void)err;
    return MPI_SUCCESS;
#else
    char id[MM__BOOT_ID_LEN];
    int readable = mm__read_boot_id(id) == 0;
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int i = 0; i < MM__BOOT_ID_LEN; i++) h = (h ^ (unsigned char)id[i]) * 0x100000001b3ULL;
    mm__hash_file("/proc/self/timens_offsets", &h);
    /* an unreadable boot id never matches: its rank gets a hash of its own */
    uint64_t mine[2] = {readable ? h : 0, readable ? ~h : 0}, all[2] = {0, 0};
    int rc = MM_MPI(err, MPI_Allreduce(mine, all, 2, MPI_UINT64_T, MPI_MIN, comm));
    /* min(h) == h and min(~h) == ~h on every rank: every h is the same. A rank whose first
     * Allreduce failed still takes part in the second (as "not the same"), so that every rank
     * makes the same calls and the caller's agreement meets them all. */
    int same = rc == MPI_SUCCESS && readable && all[0] == h && all[1] == ~h, all_same = 0;
    int second = MM_MPI(err, MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, comm));
    if (rc == MPI_SUCCESS) rc = second;
    if (rc == MPI_SUCCESS) *one = all_same;
    return rc;
#endif
}
