/* SPDX-License-Identifier: BSD-3-Clause */
/* cs_hca3o.c — HCA3 offset-only: hca3's top-down tree with one offset measurement per edge.
 *
 * What: the binomial tree of hca3 (round k: synced ranks r < 2^k answer r + 2^k with their
 *   global clock), but each child takes a single min-RTT offset measurement (N non-improving
 *   round trips, at most pingpong_cap; ReproMPI's library stops at 20 round trips, which leaves
 *   no room for the N-stop) and keeps global = local − offset. No drift model.
 * Why: the fastest sync; with drift of ~100 ppm it is good to ~1 µs only for ~10 ms, so it needs
 *   re-syncs (about every second, --resync-s) or the after-the-fact clock (docs/ALGORITHMS.md).
 * Cost: ⌈log2 p⌉ sequential rounds of one measurement each.
 * Source: Hunold & Carpen-Amarie, CLUSTER 2018 (HCA3, offset variant); docs/ALGORITHMS.md. */
#include "cs_internal.h"

static int mm__hca3o_sync(mm_clocksync *cs) { return mm__topdown_sync(cs, 1, 0.0); }

const mm_clocksync_vtable mm_clocksync_hca3o = {
    .name = "hca3o",
    .model_kind = "offset",
    .tree = "top-down",
    .cost = "O(log p)",
    .description = "top-down tree, one offset per edge against the parent's global clock (fast; "
                   "re-sync often)",
    .sync = mm__hca3o_sync,
};
