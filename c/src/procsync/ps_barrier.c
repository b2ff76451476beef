/* SPDX-License-Identifier: BSD-3-Clause */
/* ps_barrier.c — MS1 (Hunold & Carpen-Amarie 2016, Table 3): MPI_Barrier before each
 * repetition, run time from local clocks. Cheap and needs no clock sync, but the barrier's exit
 * skew (which depends on the library's barrier algorithm) becomes part of the measurement. */
#include "mm_procsync.h"

static int mm__barrier_before(mm_procsync *ps, long rep) {
    MM_MPI(&ps->err, MPI_Barrier(ps->comm));
    return 0;
}

const mm_procsync_vtable mm_procsync_barrier = {
    .name = "barrier",
    .scheme = "MS1",
    .needs_global_clock = 0,
    .redoes_invalid = 0,
    .barrier_in_timed_region = 0,
    .has_planned_start = 0,
    .begin_test = mm_procsync_barrier_begin,
    .before_rep = mm__barrier_before,
    .after_rep = mm_procsync_nothing_after,
    .end_test = mm_procsync_nothing_end,
    .budget_exhausted = NULL,
};
