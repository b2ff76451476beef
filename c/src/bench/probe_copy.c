/* SPDX-License-Identifier: BSD-3-Clause */
/* probe_copy.c — the copy-bandwidth probe of a launch (meta.json "probes.copy_bandwidth").
 *
 * What: before the tests, every rank at once (after a barrier per size) copies a buffer of
 *   4 KiB, 16 KiB, ... (x4) up to --copy-probe-bytes with memcpy, in MM_COPY_BATCHES timed
 *   batches of enough copies to move at least MM_COPY_BATCH_BYTES; each rank's rate at a size is
 *   its best batch (bytes copied / batch time, as STREAM reports the best of its trials), and
 *   rank 0 records, per size, the least, the median and the largest rate over the ranks.
 * Why: Hoefler & Belli 2015 (§5.1, rule 11) ask for results shown against an upper bound of the
 *   performance; on a host whose ranks share memory, an operation cannot move its data faster
 *   than the host copies memory, so the analysis bounds each operation by its least data volume
 *   (mm_op_volume) at the copy rate plus the latency floor of a message (pairs.c). STREAM's
 *   "Copy" kernel (McCalpin) is the model; memcpy is used because MPI libraries copy with it.
 *   All ranks copy at once because during a collective every rank moves data at the same time
 *   (a rank alone would see more of the memory bus than the operation gets). The small sizes
 *   are cache-resident: the largest rate over the sizes is the fastest copy the host can do,
 *   which no operation beats, whatever cache its data sits in.
 * Cost: two buffers of --copy-probe-bytes per rank (counted by the memory check, freed before
 *   the tests); about 5 x (sizes x 1 MiB + the largest size) bytes copied per rank — ~15 ms at
 *   16 MiB here; one barrier per size and one gather to rank 0. Outside any test. */
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_output.h"

/* Through a volatile pointer: a copy into a buffer that is freed unread would otherwise be a
 * dead store the compiler may remove. */
static void *(*volatile mm__copy)(void *, const void *, size_t) = memcpy;

/* Under SimGrid's SMPI all simulated ranks live in one process and memcpy takes no simulated
 * time (smpi/simulate-computation:no): the probe would allocate 2 buffers per simulated rank in
 * that one process (64 GiB at 1024 ranks) and measure nothing. It is not run there; meta.json
 * then has no copy_bandwidth, as with --copy-probe-bytes 0. */
int64_t mm_copy_probe_bytes(int64_t max_bytes) {
#ifdef MM_SIMGRID
    (void)max_bytes;
    return 0;
#else
    return max_bytes;
#endif
}

int mm_copy_ladder(int64_t max_bytes, int64_t *sizes, int max) {
    int n = 0;
    if (max_bytes <= 0) return 0;
    for (int64_t s = MM_COPY_MIN_BYTES; s < max_bytes && n < max - 1; s *= 4) sizes[n++] = s;
    if (n < max) sizes[n++] = max_bytes; /* the largest, as given: the memory's rate */
    return n;
}

int mm_copy_copies(int64_t bytes) {
    if (bytes <= 0) return 1;
    int64_t k = (MM_COPY_BATCH_BYTES + bytes - 1) / bytes;
    return k < 1 ? 1 : (int)k;
}

static int mm__cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int mm_copy_summary(double *rates, int n, double *least, double *median, double *largest) {
    int kept = 0;
    for (int i = 0; i < n; i++)
        if (rates[i] > 0) rates[kept++] = rates[i];
    *least = *median = *largest = -1;
    if (kept == 0) return 0;
    qsort(rates, (size_t)kept, sizeof rates[0], mm__cmp_double);
    *least = rates[0];
    *largest = rates[kept - 1];
    *median = kept % 2 ? rates[kept / 2] : 0.5 * (rates[kept / 2 - 1] + rates[kept / 2]);
    return kept;
}

/* This rank's best rate (bytes/s) at each size; -1 where it could not measure. */
static void mm__copy_rates(const int64_t *sizes, int nsizes, int64_t max_bytes, MPI_Comm comm,
                           const mm_timer *timer, double *rate, mm_mpi_error *err) {
    unsigned char *src = NULL, *dst = NULL;
    if (posix_memalign((void **)&src, 4096, (size_t)max_bytes) != 0) src = NULL;
    if (posix_memalign((void **)&dst, 4096, (size_t)max_bytes) != 0) dst = NULL;
    if (src && dst) { /* every page touched before any timing */
        memset(src, 0x5a, (size_t)max_bytes);
        memset(dst, 0, (size_t)max_bytes);
    }
    for (int i = 0; i < nsizes; i++) {
        rate[i] = -1;
        MM_MPI(err, MPI_Barrier(comm)); /* every rank copies at once */
        if (!src || !dst) continue;
        size_t bytes = (size_t)sizes[i];
        int copies = mm_copy_copies(sizes[i]);
        mm__copy(dst, src, bytes); /* untimed: the first copy brings the size into its cache */
        for (int b = 0; b < MM_COPY_BATCHES; b++) {
            int64_t start_ns = mm_timer_now(timer);
            for (int k = 0; k < copies; k++) mm__copy(dst, src, bytes);
            int64_t took_ns = mm_timer_now(timer) - start_ns;
            double r = took_ns > 0 ? (double)bytes * copies * 1e9 / (double)took_ns : -1;
            if (r > rate[i]) rate[i] = r;
        }
    }
    free(src);
    free(dst);
}

void mm_provenance_probe_copy(mm_provenance *p, MPI_Comm comm, const mm_timer *timer, int64_t max_bytes) {
    int64_t sizes[MM_COPY_MAX_SIZES];
    max_bytes = mm_copy_probe_bytes(max_bytes);
    int nsizes = mm_copy_ladder(max_bytes, sizes, MM_COPY_MAX_SIZES);
    if (nsizes == 0) return; /* --copy-probe-bytes 0 (or SimGrid): no probe */
    int rank = 0, nprocs = 1;
    MM_MPI(&p->err, MPI_Comm_rank(comm, &rank));
    MM_MPI(&p->err, MPI_Comm_size(comm, &nprocs));
    double rate[MM_COPY_MAX_SIZES];
    mm__copy_rates(sizes, nsizes, max_bytes, comm, timer, rate, &p->err);
    double *all = rank == 0 ? malloc((size_t)nprocs * (size_t)nsizes * sizeof(double)) : NULL;
    double *column = rank == 0 ? malloc((size_t)nprocs * sizeof(double)) : NULL;
    if (!mm_all_ok(comm, rank != 0 || (all && column))) {
        free(all);
        free(column);
        return;
    }
    if (MM_MPI(&p->err, MPI_Gather(rate, nsizes, MPI_DOUBLE, all, nsizes, MPI_DOUBLE, 0, comm)) ==
            MPI_SUCCESS &&
        rank == 0) {
        mm_copy_probe *c = &p->copy;
        c->max_bytes = max_bytes;
        c->ranks_at_once = nprocs;
        c->nsizes = nsizes;
        for (int i = 0; i < nsizes; i++) {
            mm_copy_rate *e = &c->rate[i];
            for (int r = 0; r < nprocs; r++) column[r] = all[(size_t)r * nsizes + i];
            e->bytes = sizes[i];
            e->copies = mm_copy_copies(sizes[i]);
            e->ranks = mm_copy_summary(column, nprocs, &e->min_Bps, &e->median_Bps, &e->max_Bps);
        }
        p->has_copy = 1;
    }
    free(all);
    free(column);
}
