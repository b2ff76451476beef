/* SPDX-License-Identifier: BSD-3-Clause */
/* other_cpu.c — other processes' CPU share per block of repetitions (Roth 2021, §4.4: "the
 * processor time attributed to other processes during each repetition"; docs/FORMAT.md,
 * tests[].other_cpu).
 *
 * What: at the start of a test's loop, between its blocks of repetitions (the window's batch
 * length, mm_window_batch_length: 32 by default, the same for every process sync) and at its
 * end, every rank reads its own CPU time (CLOCK_PROCESS_CPUTIME_ID) and rank 0 also the machine's
 * busy CPU time (/proc/stat) and its monotonic clock. After the loop one reduction sums the CPU
 * time of the ranks on rank 0's host per block, and rank 0 computes per block
 *   other = machine busy − those ranks' CPU   (seconds; negative when a tick fell short)
 *   share = other / (block wall time × CPUs), clamped to [0, 1],
 * the per-block form of meta.json's load.other_cpu_s (output/provenance.c).
 * Why rank 0's host only: it is the machine load.other_cpu_s describes, so the blocks add up to
 * the launch's figure; on one host it is every rank's machine. Reading /proc/stat on each host
 * would need a reader per host and a gather per test for a figure no check uses yet. The ranks
 * on rank 0's host are those on its kernel (same_kernel.c: its boot id), network namespaces and
 * containers included.
 * Where it is read: in the loop's boundary between two repetitions (loop.c), never between the
 * two timestamps of one; a window schedule restarts after it (the window's `resume`), so that
 * the read never makes the next window start late.
 * Resolution: /proc/stat counts 10 ms ticks, and a block of 32 short repetitions lasts well
 * under a millisecond: one block's share is 0 or a whole tick's worth (often clamped to 1).
 * Roth §4.4 met the same limit per repetition and found no correlation; the analysis pools
 * consecutive blocks from their signed `other` (mpimeter.analysis.block_load) rather than
 * trusting one.
 * Cost: per block, rank 0 one /proc/stat read (3–8 µs here, common/procstat.c) and every rank
 * one CPU clock read (0.2–1 µs); per test one allreduce of three longs and one reduction of a
 * double per block, after the loop; per launch the kernel grouping (an allgather of 40 bytes per
 * rank and a split). */
#include <math.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "mm_bench.h"
#include "mm_procstat.h"

struct mm_other_cpu {
    int reader;    /* rank 0 of the launch: reads /proc/stat and the wall clock */
    int same_host; /* this rank runs on rank 0's kernel: its CPU time is in that machine's busy time */
    int ncpus;
    long n, cap;   /* marks taken in this test, room for them */
    int failed;    /* no memory to grow: this test records no blocks */
    double *own_s, *busy_s, *wall_s;
    long *recorded;
};

static double mm__clock_s(clockid_t id) {
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) return NAN;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static mm_status mm__grow(mm_other_cpu *oc, long cap) {
    double **arrays[] = {&oc->own_s, &oc->busy_s, &oc->wall_s};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++) {
        double *more = realloc(*arrays[i], (size_t)cap * sizeof(double));
        if (!more) return MM_E_NOMEM;
        *arrays[i] = more;
    }
    long *more = realloc(oc->recorded, (size_t)cap * sizeof(long));
    if (!more) return MM_E_NOMEM;
    oc->recorded = more;
    oc->cap = cap;
    return 0;
}

/* Collective: does this rank run on rank 0's kernel (mm_comm_same_kernel: network namespaces
 * and containers of one machine share its CPUs and its /proc/stat, whatever their host names)?
 * The lowest rank of each kernel's group leads it: rank 0's group is the one led by rank 0. */
static mm_status mm__on_rank0_kernel(MPI_Comm comm, int rank, int *same, mm_mpi_error *err) {
    MPI_Comm node = MPI_COMM_NULL;
    int lowest = rank;
    if (mm_comm_same_kernel(comm, &node, err) != MPI_SUCCESS) return MM_E_FAILED;
    int rc = MM_MPI(err, MPI_Bcast(&lowest, 1, MPI_INT, 0, node));
    MPI_Comm_free(&node);
    *same = lowest == 0;
    return rc == MPI_SUCCESS ? 0 : MM_E_FAILED;
}

mm_status mm_other_cpu_open(mm_other_cpu **out, MPI_Comm comm, long blocks_hint, mm_mpi_error *err) {
    int rank, same = 0;
    *out = NULL;
    if (MM_MPI(err, MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS ||
        mm__on_rank0_kernel(comm, rank, &same, err) != 0)
        return MM_E_FAILED;
    mm_other_cpu *oc = calloc(1, sizeof *oc);
    if (!oc) return MM_E_NOMEM;
    oc->reader = rank == 0;
    oc->same_host = same;
    long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
    oc->ncpus = ncpus > 0 ? (int)ncpus : 0;
    if (mm__grow(oc, blocks_hint > 0 ? blocks_hint : 8) != 0) {
        mm_other_cpu_close(oc);
        return MM_E_NOMEM;
    }
    *out = oc;
    return 0;
}

void mm_other_cpu_close(mm_other_cpu *oc) {
    if (!oc) return;
    free(oc->own_s);
    free(oc->busy_s);
    free(oc->wall_s);
    free(oc->recorded);
    free(oc);
}

void mm_other_cpu_begin(mm_other_cpu *oc) {
    if (!oc) return;
    oc->n = 0;
    oc->failed = 0;
}

void mm_other_cpu_mark(mm_other_cpu *oc, long recorded) {
    if (!oc || oc->failed) return;
    if (oc->n == oc->cap && mm__grow(oc, 2 * oc->cap) != 0) {
        oc->failed = 1;
        return;
    }
    long k = oc->n++;
    oc->recorded[k] = recorded;
    oc->own_s[k] = mm__clock_s(CLOCK_PROCESS_CPUTIME_ID);
#ifdef MM_SIMGRID
    oc->busy_s[k] = NAN; /* simulated wall time: this machine's CPU time says nothing (provenance.c) */
#else
    oc->busy_s[k] = oc->reader ? mm_procstat_busy_s("/proc/stat") : NAN;
#endif
    oc->wall_s[k] = oc->reader ? mm__clock_s(CLOCK_MONOTONIC) : NAN;
}

/* Rank 0: the blocks between the n marks, from the summed CPU time of the ranks on its host
 * (own_sum[k]: over block k); NULL when a figure is unknown or memory is short. */
static mm_load_block *mm__blocks(const mm_other_cpu *oc, const double *own_sum, long n) {
    mm_load_block *blocks = malloc((size_t)n * sizeof *blocks);
    for (long k = 0; blocks && k < n; k++) {
        double wall = oc->wall_s[k + 1] - oc->wall_s[k], busy = oc->busy_s[k + 1] - oc->busy_s[k];
        double share = mm_other_cpu_share(busy, own_sum[k], wall, oc->ncpus);
        if (isnan(share)) {
            free(blocks);
            return NULL;
        }
        blocks[k] = (mm_load_block){.first_rep = oc->recorded[k],
                                    .nrep = oc->recorded[k + 1] - oc->recorded[k],
                                    .wall_s = wall, .other_s = busy - own_sum[k], .share = share};
    }
    return blocks;
}

int mm_other_cpu_finish(mm_other_cpu *oc, MPI_Comm comm, long block_reps, mm_test *t,
                        mm_mpi_error *err) {
    /* the same number of marks on every rank (the loop's boundaries are alike), checked: a rank
     * short of memory or at another count makes the test record none */
    long mine[3] = {oc->n, -oc->n, oc->failed}, most[3] = {0, 0, 0};
    if (MM_MPI(err, MPI_Allreduce(mine, most, 3, MPI_LONG, MPI_MAX, comm)) != MPI_SUCCESS)
        return err->code;
    long n = most[0] - 1;
    if (most[2] || most[0] != -most[1] || n < 1) return MPI_SUCCESS;
    /* in place: block k's own CPU time (0 off rank 0's host), summed at rank 0 */
    for (long k = 0; k < n; k++)
        oc->own_s[k] = oc->same_host ? oc->own_s[k + 1] - oc->own_s[k] : 0.0;
    int rc = oc->reader ? MPI_Reduce(MPI_IN_PLACE, oc->own_s, (int)n, MPI_DOUBLE, MPI_SUM, 0, comm)
                        : MPI_Reduce(oc->own_s, NULL, (int)n, MPI_DOUBLE, MPI_SUM, 0, comm);
    if (mm_mpi_check(err, rc, "MPI_Reduce") != MPI_SUCCESS) return err->code;
    if (!oc->reader) return MPI_SUCCESS;
    free(t->load_blocks);
    t->load_blocks = mm__blocks(oc, oc->own_s, n);
    t->nload_blocks = t->load_blocks ? n : 0;
    t->load_block_reps = block_reps;
    return MPI_SUCCESS;
}
