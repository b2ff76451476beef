/* SPDX-License-Identifier: BSD-3-Clause */
/* runtime.c — the run time of one repetition (mm_runtime.h). Unsigned arithmetic: raw
 * timestamps of a virtual clock may be far apart, and wrap-around is defined for uint64. */
#include "mm_runtime.h"

int mm_rep_timed_rank(int round_trip, int pair_first) {
    return round_trip ? pair_first : MM_REP_EVERY_RANK;
}

int mm_rep_rank_is_timed(int timed_rank, int rank) {
    return timed_rank == MM_REP_EVERY_RANK || rank == timed_rank;
}

int64_t mm_rep_duration_ns(int64_t start_ns, int64_t end_ns) {
    return (int64_t)((uint64_t)end_ns - (uint64_t)start_ns);
}

int64_t mm_rep_runtime_ns(int has_global, int64_t max_duration_ns, int64_t min_gstart_ns,
                          int64_t max_gend_ns) {
    return has_global ? mm_rep_duration_ns(min_gstart_ns, max_gend_ns) : max_duration_ns;
}

int64_t mm_rep_reduced_end_ns(int64_t min_start_ns, int64_t max_duration_ns) {
    return (int64_t)((uint64_t)min_start_ns + (uint64_t)max_duration_ns);
}
