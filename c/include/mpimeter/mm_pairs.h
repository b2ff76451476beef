/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_pairs.h — the ping-pong pair of a launch (pairs.c): the sampled pairs' survey and the
 * choice, records that meta.json's probes render. */
#ifndef MM_PAIRS_H
#define MM_PAIRS_H
#include <mpi.h>
#include <stdint.h>
#include "mm_config.h"
#include "mm_timer.h"

enum { MM_PAIR_NEXT_RANKS = 16, MM_PAIR_RANDOM = 4, MM_PAIR_MAX_SAMPLES = 20,
       MM_PAIR_ROUND_TRIPS = 51, MM_PAIR_WARMUP = 10 };
enum { MM_PAIR_NONE = 0, MM_PAIR_GIVEN = 1, MM_PAIR_SAMPLED = 2 };

/* The sampled pairs' 1-byte round trips, measured once per launch before the tests: the
 * latency floor of each pair (meta.json probes.latency_floor) and SKaMPI's choice of the
 * ping-pong pair (probes.pingpong_pair) both come from it. */
typedef struct mm_pair_survey {
    int nsamples;
    int sample[MM_PAIR_MAX_SAMPLES][2];
    double median_rtt_ns[MM_PAIR_MAX_SAMPLES]; /* < 0: the sample failed */
    double min_rtt_ns[MM_PAIR_MAX_SAMPLES];    /* < 0: the sample failed */
} mm_pair_survey;

/* The pair of a launch's ping-pongs and how it was chosen (meta.json probes.pingpong_pair). */
typedef struct mm_pair_choice {
    int pair[2];
    int chosen_by; /* MM_PAIR_NONE (no ping-pong in the launch), _GIVEN (--pair), _SAMPLED */
    int nsamples;
    int sample[MM_PAIR_MAX_SAMPLES][2];
    double median_rtt_ns[MM_PAIR_MAX_SAMPLES]; /* < 0: the sample failed */
} mm_pair_choice;

/* The pairs SKaMPI's rule samples: rank 0 with ranks 1 .. min(nprocs-1, MM_PAIR_NEXT_RANKS),
 * then up to MM_PAIR_RANDOM distinct pairs drawn from the seed among those not yet listed (when
 * there are any). Pure. Returns the number written (at most max). */
int mm_pair_sample(int nprocs, uint64_t seed, int (*pairs)[2], int max);
/* Index of the largest median (the first of equal ones); medians < 0 are skipped; -1 if none. */
int mm_pair_pick(const double *median_rtt_ns, int n);
/* Collective: the survey of the sampled pairs (mm_pair_sample): each pair's 1-byte round trips
 * (MM_PAIR_ROUND_TRIPS after MM_PAIR_WARMUP, one pair at a time), their median and minimum.
 * Every rank gets the same survey. Outside any timed region. MPI_SUCCESS or the error. */
int mm_pair_survey_run(const mm_config *cfg, MPI_Comm comm, const mm_timer *timer, mm_pair_survey *out);
/* The pair of the launch's ping-pongs: --pair, or the surveyed pair with the largest median
 * round trip (SKaMPI's rule). Pure. */
void mm_pair_choose(const mm_config *cfg, const mm_pair_survey *survey, mm_pair_choice *out);

#endif
