/* SPDX-License-Identifier: BSD-3-Clause */
/* ps_loop_barrier.c — MS3 (Phloem): a loop with a barrier inside; the timed region of each
 * repetition is MPI_Barrier followed by the call, so a repetition's time includes the barrier
 * (what Phloem reports as total/nrep). Kept for comparison with that method. */
#include "mm_procsync.h"

const mm_procsync_vtable mm_procsync_loop_barrier = {
    .name = "loop-barrier",
    .scheme = "MS3",
    .needs_global_clock = 0,
    .redoes_invalid = 0,
    .barrier_in_timed_region = 1,
    .has_planned_start = 0,
    .begin_test = mm_procsync_barrier_begin,
    .before_rep = mm_procsync_nothing_before,
    .after_rep = mm_procsync_nothing_after,
    .end_test = mm_procsync_nothing_end,
    .budget_exhausted = NULL,
};
