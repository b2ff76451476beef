/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_decide.h — --nrep auto while a test runs (decide.c): the run times reduced to rank 0 and
 * the stopping rule's verdict broadcast. */
#ifndef MM_DECIDE_H
#define MM_DECIDE_H
#include <mpi.h>
#include <stdint.h>
#include "mm_adaptive.h"
#include "mm_config.h"
#include "mm_gather.h"
#include "mm_mpi.h"

/* What rank 0 needs to judge a test while it runs (decide.c): every recorded repetition's run
 * time across ranks (max end - min start on the global clock, or the longest local duration)
 * and whether it is valid on every rank, reduced to rank 0 a chunk at a time outside the timed
 * region; the stopping rule's verdict broadcast from rank 0, so that all ranks stop together. */
typedef struct mm_decide {
    MPI_Comm comm;
    int rank;
    int has_global;         /* run times on the global clock (else the longest local duration) */
    int64_t spread_ns;      /* > 0: starts further apart than this make a repetition invalid, as
                               the analysis's start-spread check does; 0: not checked */
    long chunk;             /* repetitions per reduction */
    int64_t *send, *recv;   /* 6 x chunk */
    int timed_rank;         /* mm_rep_timed_rank: whose times make the run time, or MM_REP_EVERY_RANK */
    double *runtimes;       /* rank 0: the valid run times so far (cap) */
    double *scratch;        /* rank 0: a copy the rule may sort */
    long cap, nvalid, upto; /* upto: repetitions reduced so far */
    int64_t started_ns;     /* rank 0: when the test's measuring began, on its timer */
    long local_from;        /* repetitions from here on take the longest local duration: the test
                               went on with a method without a planned start (a switch), as the
                               analysis does; LONG_MAX: none */
} mm_decide;
mm_status mm_decide_alloc(mm_decide *d, long cap, long chunk, int has_global, MPI_Comm comm);
void mm_decide_free(mm_decide *d);
/* Starts a test (or a nonblocking test's phase) anew at now_ns (rank 0's timer); timed_rank:
 * mm_rep_timed_rank of its operation. */
void mm_decide_begin(mm_decide *d, int64_t spread_ns, int64_t now_ns, int timed_rank);
/* Collective: reduces repetitions [d->upto, upto) of b to rank 0. MPI_SUCCESS or the error. */
int mm_decide_collect(mm_decide *d, const mm_rep_buffers *b, long upto, mm_mpi_error *err);
/* Collective: rank 0 applies the rule to what it collected after `recorded` repetitions and
 * broadcasts the verdict (MM_STOP_*) into *reason on every rank; *reached (rank 0) is the
 * precision now. MPI_SUCCESS or the error. */
int mm_decide_stop(mm_decide *d, const mm_stop_rule *rule, long recorded, int64_t now_ns, int *reason,
                   double *reached, mm_mpi_error *err);
/* Rank 0: the precision and the median of everything collected (NaN when nothing valid). */
double mm_decide_precision(mm_decide *d, const mm_stop_rule *rule);
double mm_decide_median(mm_decide *d);
/* The stopping rule of cfg (--nrep auto), with the timer's resolution for rse. */
mm_stop_rule mm_decide_rule(const mm_config *cfg, double resolution_ns);

#endif
