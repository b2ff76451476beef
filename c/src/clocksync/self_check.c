/* SPDX-License-Identifier: BSD-3-Clause */
/* self_check.c — the clock sync checks itself once it is done (docs/FORMAT.md,
 * clock_sync.self_check; docs/ALGORITHMS.md, "Checking a sync").
 *
 * What: right after a drift-aware sync (hca3, hca, hca2, jk: model_kind "linear") the launch
 *   measures the residual offsets (rank 0's global clock against each checked rank's). The same
 *   measurement says what the offset-only model implied by the fit would give: the model frozen
 *   at the sync's end (its offset there, slope 0), which differs from the fitted one by the
 *   slope's share since then, e_r = offset(t_r) - offset(sync end) on rank r, t_r the local time
 *   at which r answered the residual check. Its residual is
 *   residual - e_r. When the largest of those is smaller than the drift-aware model's largest by
 *   more than MM_SELF_CHECK_MARGIN_NS, the fitted slope is worse than none (a fit over a short
 *   span under load: seen 406 us off 5 s later where the offset-only hca3o was 250 us off), and
 *   every rank freezes its model; later re-syncs are frozen too.
 * Why: a bad model is otherwise found only in sync.csv, after the fact.
 * Power: a slope error eps shows as eps x (check time - sync end): with the check some
 *   milliseconds after the sync, errors of a few hundred ppm and more; smaller ones stay for the
 *   end-of-launch residual and the after-the-fact clock to show.
 * Cost: one gather and one broadcast after the residual check the launch makes anyway. */
#include <stdlib.h>
#include <string.h>

#include "mm_clocksync.h"

static int64_t mm__abs64(int64_t v) { return v < 0 ? -v : v; }

const char *mm_clocksync_model_kind(const mm_clocksync *cs) {
    return cs->offset_only ? "offset" : cs->vt->model_kind;
}

void mm_clocksync_freeze(mm_clocksync *cs) {
    int64_t at = cs->last_sync_local_ns;
    cs->model.intercept_ns = (double)mm_model_offset_ns(&cs->model, at);
    cs->model.anchor_ns = at;
    cs->model.slope = 0.0;
}

void mm_clocksync_inject_slope(mm_clocksync *cs, double slope_ppm) {
    int64_t at = cs->last_sync_local_ns;
    cs->model.intercept_ns = (double)mm_model_offset_ns(&cs->model, at);
    cs->model.anchor_ns = at;
    cs->model.slope += slope_ppm * 1e-6;
}

int mm_clocksync_self_check(mm_clocksync *cs, const int *ranks, const int64_t *residual_ns, int n) {
    if (strcmp(cs->vt->model_kind, "linear") != 0) return MPI_SUCCESS;
    /* the slope's share at the moment this rank's residual was measured, not now: on a busy
     * machine the check can come long after it, and the share grows meanwhile */
    int64_t at = cs->residual_local_ns > cs->last_sync_local_ns ? cs->residual_local_ns
                                                                : mm_timer_now(cs->timer);
    int64_t moved = mm_model_offset_ns(&cs->model, at) -
                    mm_model_offset_ns(&cs->model, cs->last_sync_local_ns);
    int64_t *all = cs->rank == 0 ? malloc((size_t)cs->nprocs * sizeof *all) : NULL;
    if (!mm_all_ok(cs->comm, cs->rank != 0 || all)) {
        free(all);
        return MPI_ERR_NO_MEM;
    }
    int rc = MM_MPI(&cs->err, MPI_Gather(&moved, 1, MPI_INT64_T, all, 1, MPI_INT64_T, 0, cs->comm));
    int freeze = 0;
    if (cs->rank == 0 && rc == MPI_SUCCESS) {
        int64_t linear = 0, offset = 0;
        for (int i = 0; i < n; i++) {
            if (mm__abs64(residual_ns[i]) > linear) linear = mm__abs64(residual_ns[i]);
            int64_t off = residual_ns[i] - all[ranks[i]];
            if (mm__abs64(off) > offset) offset = mm__abs64(off);
        }
        cs->self_checked = 1;
        cs->self_check_linear_ns = linear;
        cs->self_check_offset_ns = offset;
        freeze = n > 0 && linear > offset + MM_SELF_CHECK_MARGIN_NS;
    }
    free(all);
    if (rc == MPI_SUCCESS) rc = MM_MPI(&cs->err, MPI_Bcast(&freeze, 1, MPI_INT, 0, cs->comm));
    if (rc == MPI_SUCCESS && freeze) {
        mm_clocksync_freeze(cs);
        cs->offset_only = 1;
    }
    return rc;
}
