/* SPDX-License-Identifier: BSD-3-Clause */
/* ps_none.c — MS2 (IMB, mpptest): one barrier at the start of the test, then the repetitions
 * back to back. Calls may pipeline (Hoefler et al. 2010 §1.2): kept to reproduce what those
 * tools report, not as an accurate method. Each repetition is still timed on its own. */
#include "mm_procsync.h"

const mm_procsync_vtable mm_procsync_none = {
    .name = "none",
    .scheme = "MS2",
    .needs_global_clock = 0,
    .redoes_invalid = 0,
    .barrier_in_timed_region = 0,
    .has_planned_start = 0,
    .begin_test = mm_procsync_barrier_begin,
    .before_rep = mm_procsync_nothing_before,
    .after_rep = mm_procsync_nothing_after,
    .end_test = mm_procsync_nothing_end,
    .budget_exhausted = NULL,
};
