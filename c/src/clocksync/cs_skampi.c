/* SPDX-License-Identifier: BSD-3-Clause */
/* cs_skampi.c — SKaMPI's clock sync: rank 0 against every other rank in turn, offset only.
 *
 * What: rank 0 answers each rank r = 1 .. p−1 in turn; r measures its offset to rank 0 with
 *   SKaMPI's bound intersection (each round trip bounds the offset from both sides; the tightest
 *   bounds' midpoint is the estimate) and stops early once, after min_rounds rounds, a round
 *   trip comes within 110 % of the best RTT known for the pair (mm_offset_add). The best RTT of
 *   the pair is remembered across re-syncs (cs->edge_best_rtt_ns, 0 = unknown, never used as an
 *   RTT). Each rank's model: global = local − offset (no drift).
 *   SKaMPI lets rank 0 measure and then broadcasts the offsets; here each rank measures its own
 *   edge, so it holds its offset already and no broadcast is needed (same round trips).
 * Why: the simplest correct sync and the historical reference; offset only, so it drifts under
 *   clock skew (re-sync about every second, docs/ALGORITHMS.md).
 * Cost: O(p) sequential edges at rank 0; per edge min_rounds .. cap round trips.
 * Source: Reussner et al. 1998 (SKaMPI); Hunold & Carpen-Amarie 2016 §2 and §3.2.1 (offset-only
 *   syncs drift). */
#include "cs_internal.h"

static int mm__skampi_sync(mm_clocksync *cs) {
    if (cs->rank == 0) {
        for (int r = 1; r < cs->nprocs; r++) {
            int rc = mm__serve_edge(cs, r, 0);
            if (rc != MPI_SUCCESS) return rc;
        }
        return MPI_SUCCESS;
    }
    mm_offset_rules rules = mm_offset_rules_bounds(&cs->params, cs->edge_best_rtt_ns);
    mm_offset_result res;
    int rc = mm__measure_edge(cs, 0, &rules, &res);
    if (rc != MPI_SUCCESS) return rc;
    if (res.rounds > 0 && (cs->edge_best_rtt_ns <= 0 || res.rtt_ns < cs->edge_best_rtt_ns))
        cs->edge_best_rtt_ns = res.rtt_ns;
    cs->model = mm__edge_model(&res, 1);
    cs->parent = 0;
    return MPI_SUCCESS;
}

const mm_clocksync_vtable mm_clocksync_skampi = {
    .name = "skampi",
    .model_kind = "offset",
    .tree = "star",
    .cost = "O(p)",
    .description = "rank 0 against each rank in turn, bound intersection, offset only (SKaMPI)",
    .sync = mm__skampi_sync,
};
