/* SPDX-License-Identifier: BSD-3-Clause */
/* cs_hca2.c — HCA2: hierarchical clock sync with drift, intercepts per edge, O(log p) only.
 *
 * What: as hca (bottom-up tree, nfit interleaved fit points per edge over fit_span_s, one slope
 *   per edge), but right after the fit every edge re-measures its own intercept with one more
 *   min-RTT measurement (one more pass over the tree) and the line is moved through it; the edge
 *   models are then composed along the paths to rank 0 and scattered. No O(p) pass: the
 *   intercept a rank ends with is the combination of the intercepts along its path.
 * Why: O(log p) rounds throughout; the price is that offset errors add up along a path of up to
 *   ⌈log2 p⌉ edges.
 * Cost: (nfit + 1) passes × ⌈log2 p⌉ + 1 levels of measurements, one gather + scatter; wall time
 *   ≈ fit_span_s.
 * Source: Hunold & Carpen-Amarie, EuroMPI 2015 (HCA2); Hunold & Carpen-Amarie 2016 §3.2.1. */
#include "cs_internal.h"

static int mm__hca2_sync(mm_clocksync *cs) {
    int parent = -1;
    mm_clock_model edge;
    int rc = mm__bottomup_fitted_edge(cs, &edge, &parent);
    mm_offset_result last;
    if (rc == MPI_SUCCESS) rc = mm__bottomup_passes(cs, 1, 0.0, &last, &parent);
    if (rc != MPI_SUCCESS) return rc;
    if (parent >= 0) edge = mm__reanchor(&edge, &last);
    return mm__compose_and_scatter(cs, parent, &edge);
}

const mm_clocksync_vtable mm_clocksync_hca2 = {
    .name = "hca2",
    .model_kind = "linear",
    .tree = "bottom-up",
    .cost = "O(log p)",
    .description = "tree of fitted drift lines with per-edge intercepts, composed "
                   "(HCA2, Hunold & Carpen-Amarie 2015)",
    .sync = mm__hca2_sync,
};
