/* SPDX-License-Identifier: BSD-3-Clause */
/* ps_start_barrier.c — the two schemes that synchronise once, with one barrier at the start of
 * the test, and do nothing around a repetition; they differ only in where the loop puts a
 * barrier (mm_procsync_vtable.barrier_in_timed_region), so one initialiser serves both.
 *
 * MS2 (IMB, mpptest), "none": the repetitions back to back. Calls may pipeline (Hoefler et al.
 * 2010 §1.2): kept to reproduce what those tools report, not as an accurate method. Each
 * repetition is still timed on its own.
 *
 * MS3 (Phloem), "loop-barrier": a loop with a barrier inside; the timed region of each
 * repetition is MPI_Barrier followed by the call, so a repetition's time includes the barrier
 * (what Phloem reports as total/nrep). Kept for comparison with that method. */
#include "mm_procsync.h"

#define MM__START_BARRIER_ONLY(NAME, SCHEME, BARRIER_IN_TIMED_REGION)                                \
    {                                                                                                \
        .name = NAME, .scheme = SCHEME, .needs_global_clock = 0, .redoes_invalid = 0,                \
        .barrier_in_timed_region = BARRIER_IN_TIMED_REGION, .has_planned_start = 0,                  \
        .begin_test = mm_procsync_barrier_begin, .before_rep = mm_procsync_nothing_before,           \
        .after_rep = mm_procsync_nothing_after, .end_test = mm_procsync_nothing_end,                 \
        .budget_exhausted = NULL,                                                                    \
    }

const mm_procsync_vtable mm_procsync_none = MM__START_BARRIER_ONLY("none", "MS2", 0);
const mm_procsync_vtable mm_procsync_loop_barrier = MM__START_BARRIER_ONLY("loop-barrier", "MS3", 1);
