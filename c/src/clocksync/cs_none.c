/* SPDX-License-Identifier: BSD-3-Clause */
/* cs_none.c — no clock sync: every rank's global clock is its local clock.
 *
 * What: the identity model on every rank, no messages.
 * Why: correct when all ranks read one clock (one host with a shared monotonic clock, or
 *   hardware-synchronized clocks such as PTP); also the baseline a sync check compares against
 *   (on one host its residuals measure the residual check's own noise).
 * Cost: 0 rounds, 0 messages.
 * Source: docs/ALGORITHMS.md ("none"). */
#include "cs_internal.h"

static int mm__none_sync(mm_clocksync *cs) {
    cs->model = mm_model_identity();
    cs->parent = -1;
    return MPI_SUCCESS;
}

const mm_clocksync_vtable mm_clocksync_none = {
    .name = "none",
    .model_kind = "identity",
    .tree = "none",
    .cost = "0",
    .description = "local clocks as they are (one host or hardware-synchronized clocks)",
    .sync = mm__none_sync,
};
