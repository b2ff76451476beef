/* SPDX-License-Identifier: BSD-3-Clause */
/* cs_hca3.c — HCA3: top-down hierarchical clock sync with drift.
 *
 * What: a binomial tree from rank 0 down: in round k = 0 .. ⌈log2 p⌉ − 1 every rank r < 2^k that
 *   is already synced answers r + 2^k with its *global* clock (its own fitted model applied to
 *   its local clock). The child takes nfit min-RTT measurements of its local clock against that
 *   global clock, spread over fit_span_s, and fits its line local -> global directly: nothing
 *   needs composing, and the error along any path grows over at most ⌈log2 p⌉ edges. Any p works
 *   (no power-of-two group).
 * Why: drift-aware in O(log p) rounds with no composition step; the recommended sync for long
 *   launches (thousands of repetitions).
 * Cost: ⌈log2 p⌉ sequential rounds, each nfit measurements over fit_span_s (children of a round
 *   in parallel): wall time ≈ ⌈log2 p⌉ × fit_span_s.
 * Source: Hunold & Carpen-Amarie, "Hierarchical Clock Synchronization in MPI", CLUSTER 2018;
 *   docs/ALGORITHMS.md. */
#include "cs_internal.h"

static int mm__hca3_sync(mm_clocksync *cs) {
    return mm__topdown_sync(cs, cs->params.nfit, cs->params.fit_span_s);
}

const mm_clocksync_vtable mm_clocksync_hca3 = {
    .name = "hca3",
    .model_kind = "linear",
    .tree = "top-down",
    .cost = "O(log p)",
    .description = "top-down tree, each rank fits a drift line against its parent's global clock "
                   "(HCA3, Hunold & Carpen-Amarie 2018)",
    .sync = mm__hca3_sync,
};
