/* SPDX-License-Identifier: BSD-3-Clause */
/* cs_netgauge.c — Netgauge's scalable offset sync (Hoefler, Schneider & Lumsdaine 2010 §3.2).
 *
 * What: over the largest power-of-two group t <= p, round k pairs ranks (r, r + 2^k) for
 *   r mod 2^(k+1) == 0; the ranks r >= t then pair with r − t. Each edge is one min-RTT offset
 *   measurement (§3.1: stop after N round trips that did not beat the minimum, with a cap).
 *   Offsets add up along the path to rank 0, which ends with every rank's offset and scatters
 *   them. Here the higher rank of a pair measures (the paper lets the lower one; the round trips
 *   are the same), and the forwarding of learned offsets is one gather of the edges to rank 0
 *   (mm__compose_and_scatter) rather than per-round messages: same data, same result.
 * Why: ⌈log2 p⌉ rounds instead of SKaMPI's p − 1; offset only, so it drifts under skew.
 * Cost: ⌈log2 p⌉ rounds of one offset measurement each (pairs of a round in parallel), one gather
 *   and one scatter.
 * Source: Hoefler, Schneider & Lumsdaine 2010 §3.1–3.2 (Figure 7). */
#include "cs_internal.h"

static int mm__netgauge_sync(mm_clocksync *cs) {
    mm_offset_result point;
    int parent = -1;
    int rc = mm__bottomup_passes(cs, 1, 0.0, &point, &parent);
    if (rc != MPI_SUCCESS) return rc;
    mm_clock_model edge = parent >= 0 ? mm__edge_model(&point, 1) : mm_model_identity();
    return mm__compose_and_scatter(cs, parent, &edge);
}

const mm_clocksync_vtable mm_clocksync_netgauge = {
    .name = "netgauge",
    .model_kind = "offset",
    .tree = "bottom-up",
    .cost = "O(log p)",
    .description = "log2(p) rounds of pairwise min-RTT offsets, composed to rank 0 (Hoefler 2010)",
    .sync = mm__netgauge_sync,
};
