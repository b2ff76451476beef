/* SPDX-License-Identifier: BSD-3-Clause */
/* pairs.c — which two ranks a launch's ping-pongs run between (meta.json probes.pingpong_pair).
 *
 * What: --pair A,B when given; otherwise SKaMPI's rule: sample pairs — rank 0 with each of the
 *   next ranks up to a bound (MM_PAIR_NEXT_RANKS), plus a few pairs drawn from the launch seed
 *   (MM_PAIR_RANDOM) — measure each with 1-byte MPI_Send/MPI_Recv round trips (MM_PAIR_WARMUP
 *   unrecorded, then MM_PAIR_ROUND_TRIPS, one pair at a time with a barrier between pairs), take
 *   each pair's median, and choose the pair with the largest: the ping-pong then measures the
 *   slowest connection seen, not the one that happens to be fastest (on a cluster, two ranks of
 *   one node).
 * Why: SKaMPI (Reussner et al. 1998, §2.1): point-to-point measurements use "the pair of
 *   processes with maximum latency" found by a short search; measuring every pair costs
 *   O(nprocs^2) round trips, so the search here is bounded (at most 20 pairs).
 * The same survey gives every launch its latency floor per sampled pair (the least round trip,
 *   meta.json probes.latency_floor): the message-latency term of the bound the analysis shows
 *   next to the results (Hoefler & Belli 2015, rule 11). It samples rather than measuring all
 *   O(nprocs^2) pairs, so that a launch of many ranks spends milliseconds on it.
 * The ranks outside the pair being measured wait for it in a barrier polled with sleeps
 *   (mm_barrier_sleeping), not in MPI_Barrier, which MPI libraries spin in: with more ranks than
 *   cores the spinning ones held the CPUs the pair needed, and each round trip waited for a time
 *   slice (MPICH 4.0, 4 ranks on 2 cores: 1.5–2.4 s per survey).
 * Cost: at most 20 x 61 round trips of 1 byte and 20 barriers (each up to 1 ms late: the sleep
 *   step), once per launch, before the tests and outside any timed region. The sampling, the pick
 *   and the choice are pure (unit-tested). */
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_prng.h"
#include "mm_mpi.h"

enum { MM__TAG_PAIR = 241 };

static int mm__listed(int (*pairs)[2], int n, int a, int b) {
    for (int i = 0; i < n; i++)
        if ((pairs[i][0] == a && pairs[i][1] == b) || (pairs[i][0] == b && pairs[i][1] == a)) return 1;
    return 0;
}

int mm_pair_sample(int nprocs, uint64_t seed, int (*pairs)[2], int max) {
    int n = 0;
    for (int r = 1; r < nprocs && r <= MM_PAIR_NEXT_RANKS && n < max; r++) {
        pairs[n][0] = 0;
        pairs[n][1] = r;
        n++;
    }
    /* pairs not yet listed exist only beyond rank 0's: nprocs >= 3 */
    int64_t all = (int64_t)nprocs * (nprocs - 1) / 2;
    uint64_t state = seed ^ 0x5ca1ab1e0ddba11ULL;
    for (int k = 0, tries = 0; k < MM_PAIR_RANDOM && n < max && n < all && tries < 1000; tries++) {
        int a = (int)(mm_rand_next(&state) % (uint64_t)nprocs);
        int b = (int)(mm_rand_next(&state) % (uint64_t)nprocs);
        if (a == b || mm__listed(pairs, n, a, b)) continue;
        pairs[n][0] = a < b ? a : b;
        pairs[n][1] = a < b ? b : a;
        n++;
        k++;
    }
    return n;
}

int mm_pair_pick(const double *median_rtt_ns, int n) {
    int best = -1;
    for (int i = 0; i < n; i++)
        if (median_rtt_ns[i] >= 0 && (best < 0 || median_rtt_ns[i] > median_rtt_ns[best])) best = i;
    return best;
}

/* The two sides of one pair's 1-byte round trips; the median and the minimum in ns on side a
 * (b: 0). */
static int mm__round_trips(MPI_Comm comm, const mm_timer *timer, int side_a, int peer,
                           double *median_ns, double *min_ns) {
    int64_t rtt[MM_PAIR_ROUND_TRIPS];
    char out = 1, in = 0;
    for (int k = 0; k < MM_PAIR_WARMUP + MM_PAIR_ROUND_TRIPS; k++) {
        int64_t t0 = mm_timer_now(timer);
        int rc;
        if (side_a) {
            rc = MPI_Send(&out, 1, MPI_CHAR, peer, MM__TAG_PAIR, comm);
            if (rc == MPI_SUCCESS) rc = MPI_Recv(&in, 1, MPI_CHAR, peer, MM__TAG_PAIR, comm, MPI_STATUS_IGNORE);
        } else {
            rc = MPI_Recv(&in, 1, MPI_CHAR, peer, MM__TAG_PAIR, comm, MPI_STATUS_IGNORE);
            if (rc == MPI_SUCCESS) rc = MPI_Send(&out, 1, MPI_CHAR, peer, MM__TAG_PAIR, comm);
        }
        if (rc != MPI_SUCCESS) return rc;
        if (k >= MM_PAIR_WARMUP) rtt[k - MM_PAIR_WARMUP] = mm_timer_now(timer) - t0;
    }
    qsort(rtt, MM_PAIR_ROUND_TRIPS, sizeof rtt[0], mm_cmp_i64);
    *median_ns = side_a ? (double)rtt[MM_PAIR_ROUND_TRIPS / 2] : 0.0;
    *min_ns = side_a ? (double)rtt[0] : 0.0;
    return MPI_SUCCESS;
}

int mm_pair_survey_run(const mm_config *cfg, MPI_Comm comm, const mm_timer *timer, mm_pair_survey *out) {
    memset(out, 0, sizeof *out);
    int rank = 0, nprocs = 1, rc = MPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(comm, &nprocs);
    if (rc != MPI_SUCCESS) return rc;
    out->nsamples = mm_pair_sample(nprocs, cfg->plan.seed, out->sample, MM_PAIR_MAX_SAMPLES);
    /* each pair's side a knows its round trips; the others contribute -1 to the max-reduction
     * (a failed pair stays -1: never chosen, never a floor) */
    double mine[2 * MM_PAIR_MAX_SAMPLES], all[2 * MM_PAIR_MAX_SAMPLES];
    for (int i = 0; i < out->nsamples; i++) {
        mine[i] = mine[MM_PAIR_MAX_SAMPLES + i] = -1;
        int a = out->sample[i][0], b = out->sample[i][1];
        if (rank == a || rank == b) {
            double median = -1, least = -1;
            int prc = mm__round_trips(comm, timer, rank == a, rank == a ? b : a, &median, &least);
            if (prc == MPI_SUCCESS && rank == a) {
                mine[i] = median;
                mine[MM_PAIR_MAX_SAMPLES + i] = least;
            }
        }
        /* one pair at a time: pairs do not disturb each other, nor do the ranks that wait */
        rc = mm_barrier_sleeping(comm);
        if (rc != MPI_SUCCESS) return rc;
    }
    for (int i = out->nsamples; i < MM_PAIR_MAX_SAMPLES; i++) mine[i] = mine[MM_PAIR_MAX_SAMPLES + i] = -1;
    rc = MPI_Allreduce(mine, all, 2 * MM_PAIR_MAX_SAMPLES, MPI_DOUBLE, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) return rc;
    for (int i = 0; i < out->nsamples; i++) {
        out->median_rtt_ns[i] = all[i];
        out->min_rtt_ns[i] = all[MM_PAIR_MAX_SAMPLES + i];
    }
    return MPI_SUCCESS;
}

void mm_pair_choose(const mm_config *cfg, const mm_pair_survey *survey, mm_pair_choice *out) {
    memset(out, 0, sizeof *out);
    if (cfg->plan.pair_given) {
        out->pair[0] = cfg->plan.pair[0];
        out->pair[1] = cfg->plan.pair[1];
        out->chosen_by = MM_PAIR_GIVEN;
        return;
    }
    out->nsamples = survey->nsamples;
    memcpy(out->sample, survey->sample, sizeof out->sample);
    memcpy(out->median_rtt_ns, survey->median_rtt_ns, sizeof out->median_rtt_ns);
    int best = mm_pair_pick(out->median_rtt_ns, out->nsamples);
    if (best < 0) best = 0; /* every sample failed: the first pair, 0 and 1 */
    out->pair[0] = out->sample[best][0];
    out->pair[1] = out->sample[best][1];
    out->chosen_by = MM_PAIR_SAMPLED;
}
