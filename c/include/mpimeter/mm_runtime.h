/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_runtime.h — the run time of one repetition (docs/FORMAT.md, "Run time of a repetition"):
 * with a global clock, the latest global end minus the earliest global start over ranks;
 * without, the longest local duration over ranks. One definition for the C half: the stopping
 * rule's reductions (bench/decide.c) and the reduced raw rows (bench/gather.c) both use it. */
#ifndef MM_RUNTIME_H
#define MM_RUNTIME_H
#include <stdint.h>

/* One rank's local duration end - start (computed without signed overflow). */
int64_t mm_rep_duration_ns(int64_t start_ns, int64_t end_ns);
/* The repetition's run time from its reductions over ranks. */
int64_t mm_rep_runtime_ns(int has_global, int64_t max_duration_ns, int64_t min_gstart_ns,
                          int64_t max_gend_ns);
/* The end_ns of a reduced raw.csv row: the earliest start plus the longest local duration, so
 * that end_ns - start_ns of the row is the run time without a global clock. */
int64_t mm_rep_reduced_end_ns(int64_t min_start_ns, int64_t max_duration_ns);

#endif
