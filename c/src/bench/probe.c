/* SPDX-License-Identifier: BSD-3-Clause */
/* probe.c — the probes of a launch: the cache-line probe (meta.json "probes.cacheline_rtt_ns")
 * and the empty-region probe ("probes.empty_region_ns", at the end of this file).
 *
 * What: before the tests, on every host with two or more ranks, the first two ranks of the host
 *   bounce one cache line through MPI shared memory (MPI_Win_allocate_shared): rank a writes an
 *   odd number, rank b answers with the next even one, 100 batches of 10 round trips; the median
 *   batch time / 10 is the round trip. Each side gives up after 20 ms without an answer (then
 *   the probe says -1), so a descheduled partner cannot hold the launch.
 * Why: on this machine some launches measure small messages twice as fast as others, launch-wide
 *   (docs/ALGORITHMS.md, "Launch effects"). One hypothesis is that the host placed the two vCPUs
 *   on cores that share a cache for a while; the guest cannot see that, but the cost of moving a
 *   cache line between the ranks' cores shows it. The analysis uses the probe to say which
 *   recorded property separates clusters of per-launch medians.
 * Cost: about 1000 cache-line round trips (~0.2–1 ms), one window and two barriers per host (the
 *   second one waited for with sleeps, up to 1 ms late), a gather of a few integers to rank 0.
 *   Outside any test. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_output.h"
#include "mm_error.h"

enum { MM__BATCHES = 100, MM__PER_BATCH = 10 };
#define MM__GIVE_UP_NS 20000000

/* Waits until *flag == want; 0, or MM_E_FAILED after MM__GIVE_UP_NS. */
static mm_status mm__await(volatile int *flag, int want, const mm_timer *t) {
    int64_t give_up = mm_timer_now(t) + MM__GIVE_UP_NS;
    for (long spins = 0; __atomic_load_n(flag, __ATOMIC_ACQUIRE) != want; spins++) {
        if ((spins & 1023) == 1023) {
            if (mm_timer_now(t) > give_up) return MM_E_FAILED;
            if (t->yield_while_waiting) sched_yield();
        }
    }
    return 0;
}

/* The two sides of the ping-pong; the median round trip in ns on side a, -1 on failure. */
static double mm__bounce(volatile int *flag, int side_a, const mm_timer *t) {
    int64_t batch[MM__BATCHES];
    int value = 0;
    for (int b = 0; b < MM__BATCHES; b++) {
        int64_t t0 = mm_timer_now(t);
        for (int k = 0; k < MM__PER_BATCH; k++) {
            if (side_a) {
                __atomic_store_n(flag, ++value, __ATOMIC_RELEASE);
                if (mm__await(flag, ++value, t) != 0) return -1;
            } else {
                if (mm__await(flag, ++value, t) != 0) return -1;
                __atomic_store_n(flag, ++value, __ATOMIC_RELEASE);
            }
        }
        batch[b] = mm_timer_now(t) - t0;
    }
    qsort(batch, MM__BATCHES, sizeof batch[0], mm_cmp_i64);
    return (double)batch[MM__BATCHES / 2] / MM__PER_BATCH;
}

void mm_provenance_probe(mm_provenance *p, MPI_Comm comm, const mm_timer *timer) {
    int rank = 0, nprocs = 1;
    MM_MPI(&p->err, MPI_Comm_rank(comm, &rank));
    MM_MPI(&p->err, MPI_Comm_size(comm, &nprocs));
    MPI_Comm node;
    if (MM_MPI(&p->err, MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node)) !=
        MPI_SUCCESS)
        return;
    int node_rank = 0, node_size = 1;
    MM_MPI(&p->err, MPI_Comm_rank(node, &node_rank));
    MM_MPI(&p->err, MPI_Comm_size(node, &node_size));
    double rtt = -1;
    if (node_size >= 2) {
        void *base = NULL;
        MPI_Win win;
        MPI_Aint bytes = node_rank == 0 ? 64 : 0;
        if (MM_MPI(&p->err, MPI_Win_allocate_shared(bytes, 1, MPI_INFO_NULL, node, &base, &win)) ==
            MPI_SUCCESS) {
            MPI_Aint size = 0;
            int disp = 1;
            void *line = NULL;
            MM_MPI(&p->err, MPI_Win_shared_query(win, 0, &size, &disp, &line));
            if (node_rank == 0 && line) __atomic_store_n((int *)line, 0, __ATOMIC_RELEASE);
            MM_MPI(&p->err, MPI_Barrier(node));
            if (line && node_rank < 2) rtt = mm__bounce((volatile int *)line, node_rank == 0, timer);
            /* the other ranks of the host wait without spinning: with more ranks than cores a
             * spinning one held a CPU the two bouncing ranks needed (mm_barrier_sleeping) */
            MM_MPI(&p->err, mm_barrier_sleeping(node));
            MM_MPI(&p->err, MPI_Win_free(&win));
        }
    }
    MM_MPI(&p->err, MPI_Comm_free(&node));
    /* rank 0 learns, per rank: its node rank, its CPU, and (node rank 0) the round trip */
    double mine[3] = {(double)node_rank, (double)sched_getcpu(), node_rank == 0 ? rtt : -1};
    double *all = rank == 0 ? malloc((size_t)nprocs * 3 * sizeof(double)) : NULL;
    if (!mm_all_ok(comm, rank != 0 || all)) {
        free(all);
        return;
    }
    if (MM_MPI(&p->err, MPI_Gather(mine, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, comm)) ==
            MPI_SUCCESS &&
        rank == 0 && p->ranks) {
        p->probes = calloc((size_t)nprocs, sizeof *p->probes);
        /* the partner of a host's node rank 0 is the next rank of the same host (split_type
         * keeps world order within a host) */
        for (int a = 0; p->probes && a < nprocs; a++) {
            if ((int)all[3 * a] != 0) continue;
            for (int b = a + 1; b < nprocs; b++) {
                if ((int)all[3 * b] != 1 || strcmp(p->ranks[a].host, p->ranks[b].host) != 0)
                    continue;
                mm_cacheline_probe *e = &p->probes[p->nprobes++];
                e->rank_a = a;
                e->rank_b = b;
                e->cpu_a = (int)all[3 * a + 1];
                e->cpu_b = (int)all[3 * b + 1];
                e->rtt_ns = all[3 * a + 2];
                break;
            }
        }
    }
    free(all);
}

/* The empty-region probe. What: every rank times MM_EMPTY_REGION_REPS empty regions exactly as
 * the loop times a call (one timer read, then the next), takes the median, and the largest
 * median over the ranks is kept. Why: SKaMPI (Reussner et al. 1998, §3.1) measures the cost of a
 * measurement with nothing in it: the systematic overhead each repetition carries (timer reads,
 * their ordering). The launch's probe is shown next to the results, never subtracted; with
 * --subtract-overhead each test measures it again on its own ranks (mm__test_overhead_ns) for
 * the analysis to subtract. Cost: 1001 x two timer reads per rank, one reduction; outside any
 * timed region. */

/* This rank's median of MM_EMPTY_REGION_REPS empty regions, in ns; -1 when out of memory. */
static double mm__empty_region_median_ns(const mm_timer *timer) {
    int64_t *d = malloc(MM_EMPTY_REGION_REPS * sizeof *d);
    if (!d) return -1;
    for (int k = 0; k < MM_EMPTY_REGION_REPS; k++) {
        int64_t start_ns = mm_timer_now(timer);
        int64_t end_ns = mm_timer_now(timer);
        d[k] = end_ns - start_ns;
    }
    qsort(d, MM_EMPTY_REGION_REPS, sizeof d[0], mm_cmp_i64);
    double median = (double)d[MM_EMPTY_REGION_REPS / 2];
    free(d);
    return median;
}

void mm_provenance_probe_empty(mm_provenance *p, MPI_Comm comm, const mm_timer *timer) {
    double median = mm__empty_region_median_ns(timer), largest = -1;
    /* a rank that could not allocate contributes -1: the others' medians still count */
    if (MM_MPI(&p->err, MPI_Reduce(&median, &largest, 1, MPI_DOUBLE, MPI_MAX, 0, comm)) ==
            MPI_SUCCESS &&
        largest >= 0) {
        p->empty_region_ns = largest;
        p->has_empty_region = 1;
    }
}

/* Per test rather than once per launch: the value subtracted is then measured on the ranks
 * the test runs on (a sub-communicator of --nprocs) and at the time it runs (the machine's state
 * drifts within a launch: docs/ALGORITHMS.md, "Launch effects"); it costs ~0.1 ms per test. */
double mm__test_overhead_ns(MPI_Comm comm, const mm_timer *timer, mm_mpi_error *err) {
    double median = mm__empty_region_median_ns(timer), largest = -1;
    if (MM_MPI(err, MPI_Allreduce(&median, &largest, 1, MPI_DOUBLE, MPI_MAX, comm)) != MPI_SUCCESS)
        return -1;
    return largest;
}
