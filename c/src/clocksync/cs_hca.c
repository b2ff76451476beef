/* SPDX-License-Identifier: BSD-3-Clause */
/* cs_hca.c — HCA: hierarchical clock sync with drift, intercepts re-measured against rank 0.
 *
 * What: the bottom-up tree of netgauge (pairs (r, r + 2^k) over the largest power-of-two group,
 *   then r >= t with r − t), but each edge fits a linear model (slope = relative drift) from nfit
 *   min-RTT offset measurements spread over fit_span_s. The fit points of all tree levels are
 *   taken interleaved (pass j measures every edge once, level by level), so the whole tree costs
 *   one fit span, not log2 p of them. Edge models are composed along the paths to rank 0
 *   (mm_model_compose) and scattered. Then every rank re-measures its intercept directly
 *   against rank 0 (one min-RTT measurement, rank 0 serving ranks in turn) and keeps the
 *   composed slope: the O(p) part.
 * Why: drift-aware in O(log p) fitting rounds; the direct intercept removes the offset error
 *   accumulated along the path, at O(p) cost.
 * Cost: nfit passes × ⌈log2 p⌉ + 1 levels of measurements (pairs of a level in parallel), one
 *   gather + scatter, then p − 1 sequential measurements at rank 0. Wall time ≈ fit_span_s +
 *   (p − 1) measurements.
 * Source: Hunold & Carpen-Amarie, EuroMPI 2015 (HCA); summarized in Hunold & Carpen-Amarie 2016
 *   §3.2.1; tree from Hoefler, Schneider & Lumsdaine 2010 §3.2. */
#include "cs_internal.h"

static int mm__hca_sync(mm_clocksync *cs) {
    int parent = -1;
    mm_clock_model edge;
    int rc = mm__bottomup_fitted_edge(cs, &edge, &parent);
    if (rc == MPI_SUCCESS) rc = mm__compose_and_scatter(cs, parent, &edge);
    if (rc != MPI_SUCCESS) return rc;
    /* O(p): intercepts against rank 0, slopes kept. */
    if (cs->rank == 0) {
        for (int r = 1; r < cs->nprocs && rc == MPI_SUCCESS; r++) rc = mm__serve_edge(cs, r, 0);
        return rc;
    }
    mm_offset_rules rules = mm_offset_rules_min_rtt(&cs->params);
    mm_offset_result direct;
    rc = mm__measure_edge(cs, 0, &rules, &direct);
    if (rc == MPI_SUCCESS) cs->model = mm__reanchor(&cs->model, &direct);
    return rc;
}

const mm_clocksync_vtable mm_clocksync_hca = {
    .name = "hca",
    .model_kind = "linear",
    .tree = "bottom-up",
    .cost = "O(log p) + O(p)",
    .description = "tree of fitted drift lines, composed; intercepts re-measured against rank 0 "
                   "(HCA, Hunold & Carpen-Amarie 2015)",
    .sync = mm__hca_sync,
};
