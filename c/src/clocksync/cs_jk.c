/* SPDX-License-Identifier: BSD-3-Clause */
/* cs_jk.c — Jones & Koenig's linear clock model, every rank against rank 0.
 *
 * What: nfit rounds spread evenly over fit_span_s; in round j every rank r = 1 .. p−1 (served by
 *   rank 0 in rank order) takes one min-RTT offset measurement against rank 0. Each rank then
 *   fits global = local − (slope·(local − anchor) + intercept) over its nfit points with the
 *   weighted Theil–Sen estimator of model.c (each point weighing 1/RTT²): a model of the drift,
 *   not just the offset, that a few asymmetric round trips cannot tilt.
 * Why: drift-aware, so one sync serves a long launch; the fit span (not the number of points)
 *   decides how well the slope is known (docs/ALGORITHMS.md).
 * Cost: p − 1 edges × nfit measurements, all through rank 0 (O(p·nfit) sequential at rank 0);
 *   wall time about fit_span_s plus the measurements of the last round.
 * Source: Jones & Koenig, CCPE 2013; Hunold & Carpen-Amarie 2016 §3.2.1. */
#include <stdlib.h>

#include "cs_internal.h"

static int mm__jk_sync(mm_clocksync *cs) {
    int nfit = cs->params.nfit;
    double span = cs->params.fit_span_s;
    mm_offset_result *pts = cs->rank == 0 ? NULL : malloc((size_t)nfit * sizeof *pts);
    if (!mm_all_ok(cs->comm, cs->rank == 0 || pts != NULL)) {
        free(pts);
        return MPI_ERR_NO_MEM;
    }
    if (cs->rank == 0) {
        for (int j = 0; j < nfit; j++)
            for (int r = 1; r < cs->nprocs; r++) {
                int rc = mm__serve_edge(cs, r, 0);
                if (rc != MPI_SUCCESS) return rc;
            }
        return MPI_SUCCESS;
    }
    mm_offset_rules rules = mm_offset_rules_min_rtt(&cs->params);
    int64_t start = mm_timer_now(cs->timer), stagger = mm__stagger_ns(cs->rank - 1, nfit, span);
    int rc = MPI_SUCCESS;
    for (int j = 0; j < nfit && rc == MPI_SUCCESS; j++) {
        mm_timer_sleep_until(cs->timer, mm__point_time(start, j, nfit, span) + stagger);
        rc = mm__measure_edge(cs, 0, &rules, &pts[j]);
    }
    if (rc == MPI_SUCCESS) {
        cs->model = mm__edge_model(pts, nfit);
        cs->parent = 0;
    }
    free(pts);
    return rc;
}

const mm_clocksync_vtable mm_clocksync_jk = {
    .name = "jk",
    .model_kind = "linear",
    .tree = "star",
    .cost = "O(p*nfit)",
    .description = "every rank fits a drift line against rank 0 (Jones & Koenig 2013)",
    .sync = mm__jk_sync,
};
