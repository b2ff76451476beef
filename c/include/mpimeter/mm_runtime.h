/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_runtime.h — the run time of one repetition (docs/FORMAT.md, "Run time of a repetition"):
 * with a global clock, the latest global end minus the earliest global start over the timed
 * ranks; without, the longest local duration over them. The timed ranks are every rank, except
 * for a round trip: the initiator's alone (its call is the round trip; the answering rank's call
 * waits for the ping, which is not the operation: SKaMPI, Reussner et al. 1998 §2.1, as IMB and
 * OSU time it). One definition for the C half: the stopping rule's reductions (bench/decide.c)
 * and the reduced raw rows (bench/gather.c) both use it. */
#ifndef MM_RUNTIME_H
#define MM_RUNTIME_H
#include <stdint.h>

/* mm_rep_timed_rank's answer when every rank's times make the run time */
enum { MM_REP_EVERY_RANK = -1 };
/* The rank whose times alone make a repetition's run time: pair_first for a round trip (its
 * initiator), MM_REP_EVERY_RANK otherwise. */
int mm_rep_timed_rank(int round_trip, int pair_first);
/* Whether `rank`'s times enter the run time (mm_rep_timed_rank's `timed_rank`). */
int mm_rep_rank_is_timed(int timed_rank, int rank);
/* One rank's local duration end - start (computed without signed overflow). */
int64_t mm_rep_duration_ns(int64_t start_ns, int64_t end_ns);
/* The repetition's run time from its reductions over ranks. */
int64_t mm_rep_runtime_ns(int has_global, int64_t max_duration_ns, int64_t min_gstart_ns,
                          int64_t max_gend_ns);
/* The end_ns of a reduced raw.csv row: the earliest start plus the longest local duration, so
 * that end_ns - start_ns of the row is the run time without a global clock. */
int64_t mm_rep_reduced_end_ns(int64_t min_start_ns, int64_t max_duration_ns);

#endif
