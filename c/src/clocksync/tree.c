/* SPDX-License-Identifier: BSD-3-Clause */
/* tree.c — the pieces the clock-sync algorithms share: tree shapes, one edge measurement with
 * its sync.csv record, the schedule of fit points, per-edge models, and the composition of edge
 * models into global models on rank 0 (see cs_internal.h for the contracts).
 *
 * Trees (Hoefler, Schneider & Lumsdaine 2010 §3.2 for the bottom-up one; the top-down binomial
 * tree of HCA3, Hunold & Carpen-Amarie, CLUSTER 2018): in both, a parent has a lower rank than
 * its children, so composing in ascending rank order always finds the parent's model done.
 * Why gather-compose-scatter: the paper's servers forward the offsets they have learned up the
 * tree round by round and rank 0 scatters the result; a gather of one edge model per rank is
 * the same data flow (the MPI library's gather is itself a tree) with less code to get wrong.
 * Cost: one MPI_Gather and one MPI_Scatter of 32 bytes per rank. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "cs_internal.h"

int mm__bottomup_actions(int rank, int nprocs, mm__action *a) {
    int t = 1;
    while (2 * t <= nprocs) t *= 2;
    int n = 0;
    if (rank >= t) {
        a[n++] = (mm__action){rank - t, 1};
        return n;
    }
    for (int step = 1; step < t; step *= 2) {
        if (rank % (2 * step) == 0)
            a[n++] = (mm__action){rank + step, 0};
        else if (rank % (2 * step) == step)
            a[n++] = (mm__action){rank - step, 1};
    }
    if (rank + t < nprocs) a[n++] = (mm__action){rank + t, 0};
    return n;
}

int mm__bottomup_parent(int rank, int nprocs) {
    int t = 1;
    while (2 * t <= nprocs) t *= 2;
    if (rank == 0) return -1;
    if (rank >= t) return rank - t;
    return rank - (rank & -rank); /* clear the lowest set bit: the round it was paired in */
}

int mm__topdown_actions(int rank, int nprocs, mm__action *a) {
    int n = 0;
    for (int step = 1; step < nprocs; step *= 2) {
        if (rank < step) {
            if (rank + step < nprocs) a[n++] = (mm__action){rank + step, 0};
        } else if (rank < 2 * step) {
            a[n++] = (mm__action){rank - step, 1};
        }
    }
    return n;
}

int mm__topdown_parent(int rank) {
    if (rank <= 0) return -1;
    int high = 1;
    while (2 * high <= rank) high *= 2;
    return rank - high; /* clear the highest set bit */
}

int mm__measure_edge(mm_clocksync *cs, int peer, const mm_offset_rules *rules,
                     mm_offset_result *res) {
    int rc = mm_offset_measure(cs->comm, peer, mm_clockfn_local(cs->timer), rules, res);
    if (rc != MPI_SUCCESS) return rc;
    mm_sync_record r = {cs->rank, cs->phase, MM_SYNC_EDGE, peer, res->my_ns, res->offset_ns,
                        res->rtt_ns};
    mm_sync_log_add(&cs->log, r);
    return MPI_SUCCESS;
}

int mm__serve_edge(mm_clocksync *cs, int child, int answer_with_global) {
    mm_clockfn clock = answer_with_global ? mm_clockfn_global(cs) : mm_clockfn_local(cs->timer);
    return mm_offset_respond(cs->comm, child, clock);
}

int64_t mm__point_time(int64_t start_ns, int j, int n, double span_s) {
    if (n <= 1 || j <= 0) return start_ns;
    return start_ns + (int64_t)(span_s * 1e9 * (double)j / (double)(n - 1) + 0.5);
}

int64_t mm__stagger_ns(int index, int n, double span_s) {
    if (n <= 1 || index < 0) return 0;
    double interval_ns = span_s * 1e9 / (double)(n - 1);
    return (int64_t)(interval_ns * (double)(index % MM__STAGGER_SLOTS) / MM__STAGGER_SLOTS);
}

/* The index of this rank's edge among the edges of its round in the bottom-up tree. */
static int mm__bottomup_edge_index(int rank, int nprocs) {
    int t = 1;
    while (2 * t <= nprocs) t *= 2;
    if (rank >= t) return rank - t;
    int level = 0;
    while (rank > 0 && !(rank & (1 << level))) level++;
    return rank >> (level + 1);
}

mm_clock_model mm__edge_model(const mm_offset_result *pts, int n) {
    mm_clock_model m = mm_model_identity();
    if (n < 1) return m;
    int64_t *x = malloc((size_t)n * sizeof *x);
    double *y = malloc((size_t)n * sizeof *y), *w = malloc((size_t)n * sizeof *w);
    mm_status rc = MM_E_NOMEM; /* until the fit has its arrays */
    if (x && y && w) {
        /* model offset = mine − reference = −(reference − mine); a point's error is at most
         * RTT/2, so it weighs 1/RTT² (Hoefler 2010 §3.1: trust the fast round trips) */
        for (int k = 0; k < n; k++) {
            double rtt = pts[k].rtt_ns > 1 ? (double)pts[k].rtt_ns : 1.0;
            x[k] = pts[k].my_ns;
            y[k] = -(double)pts[k].offset_ns;
            w[k] = 1.0 / (rtt * rtt);
        }
        rc = mm_model_fit_robust(x, y, w, (size_t)n, &m);
    }
    if (rc != 0) { /* out of memory: the last point alone rather than a failed sync */
        m = mm_model_identity();
        m.anchor_ns = pts[n - 1].my_ns;
        m.intercept_ns = -(double)pts[n - 1].offset_ns;
    }
    free(x);
    free(y);
    free(w);
    return m;
}

double mm__fit_error_ns(const mm_offset_result *pts, int n, const mm_clock_model *m, double horizon_s) {
    if (n < 3) return -1;
    double mean = 0, sxx = 0, ss = 0;
    for (int k = 0; k < n; k++) mean += (double)(pts[k].my_ns - pts[0].my_ns);
    mean /= n;
    for (int k = 0; k < n; k++) {
        double dx = (double)(pts[k].my_ns - pts[0].my_ns) - mean;
        double r = -(double)pts[k].offset_ns - (double)mm_model_offset_ns(m, pts[k].my_ns);
        sxx += dx * dx;
        ss += r * r;
    }
    if (!(sxx > 0)) return -1;
    double sigma = sqrt(ss / (n - 2));
    if (sigma < 1.0) sigma = 1.0;
    double t = (double)(pts[n - 1].my_ns - pts[0].my_ns) + horizon_s * 1e9 - mean;
    return sigma * sqrt(1.0 / n + t * t / sxx);
}

mm_clock_model mm__reanchor(const mm_clock_model *m, const mm_offset_result *point) {
    mm_clock_model r = *m;
    r.anchor_ns = point->my_ns;
    r.intercept_ns = -(double)point->offset_ns;
    return r;
}

typedef struct mm__edge_msg {
    int64_t parent, anchor_ns;
    double slope, intercept_ns;
} mm__edge_msg;

int mm__compose_and_scatter(mm_clocksync *cs, int parent, const mm_clock_model *edge) {
    mm__edge_msg mine = {parent, edge->anchor_ns, edge->slope, edge->intercept_ns}, got;
    mm__edge_msg *all = NULL;
    mm_clock_model *global = NULL;
    int ok = 1;
    if (cs->rank == 0) {
        all = malloc((size_t)cs->nprocs * sizeof *all);
        global = malloc((size_t)cs->nprocs * sizeof *global);
        ok = all != NULL && global != NULL;
    }
    if (!mm_all_ok(cs->comm, ok)) {
        free(all);
        free(global);
        return MPI_ERR_NO_MEM;
    }
    int rc = MM_MPI(NULL, MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine,
                                     MPI_BYTE, 0, cs->comm));
    if (rc == MPI_SUCCESS && cs->rank == 0) {
        global[0] = mm_model_identity();
        for (int r = 1; r < cs->nprocs; r++) {
            int p = (int)all[r].parent;
            mm_clock_model e = {all[r].anchor_ns, all[r].slope, all[r].intercept_ns};
            /* Parents precede children in both trees; anything else is a bug: treat the edge
             * as if it were measured against rank 0 rather than reading garbage. */
            global[r] = (p >= 0 && p < r) ? mm_model_compose(&e, &global[p]) : e;
        }
        for (int r = 0; r < cs->nprocs; r++) {
            all[r].parent = r == 0 ? -1 : all[r].parent;
            all[r].anchor_ns = global[r].anchor_ns;
            all[r].slope = global[r].slope;
            all[r].intercept_ns = global[r].intercept_ns;
        }
    }
    free(global);
    if (rc == MPI_SUCCESS)
        rc = MM_MPI(NULL, MPI_Scatter(all, (int)sizeof got, MPI_BYTE, &got, (int)sizeof got,
                                      MPI_BYTE, 0, cs->comm));
    free(all);
    if (rc != MPI_SUCCESS) return rc;
    cs->model.anchor_ns = got.anchor_ns;
    cs->model.slope = got.slope;
    cs->model.intercept_ns = got.intercept_ns;
    cs->parent = parent;
    return MPI_SUCCESS;
}

int mm__bottomup_passes(mm_clocksync *cs, int npasses, double span_s, mm_offset_result *pts,
                        int *parent) {
    mm__action a[MM__MAX_ACTIONS];
    int na = mm__bottomup_actions(cs->rank, cs->nprocs, a);
    *parent = mm__bottomup_parent(cs->rank, cs->nprocs);
    mm_offset_rules rules = mm_offset_rules_min_rtt(&cs->params);
    int64_t stagger = mm__stagger_ns(mm__bottomup_edge_index(cs->rank, cs->nprocs), npasses, span_s);
    int64_t start = mm_timer_now(cs->timer);
    for (int j = 0; j < npasses; j++) {
        for (int k = 0; k < na; k++) {
            int rc;
            if (a[k].is_child) {
                mm_timer_sleep_until(cs->timer, mm__point_time(start, j, npasses, span_s) + stagger);
                rc = mm__measure_edge(cs, a[k].peer, &rules, &pts[j]);
            } else {
                rc = mm__serve_edge(cs, a[k].peer, 0);
            }
            if (rc != MPI_SUCCESS) return rc;
        }
    }
    return MPI_SUCCESS;
}

int mm__topdown_sync(mm_clocksync *cs, int npoints, double span_s) {
    mm__action a[MM__MAX_ACTIONS];
    int na = mm__topdown_actions(cs->rank, cs->nprocs, a);
    mm_offset_rules rules = mm_offset_rules_min_rtt(&cs->params);
    mm_offset_result *pts = malloc((size_t)npoints * sizeof *pts);
    if (!mm_all_ok(cs->comm, pts != NULL)) {
        free(pts);
        return MPI_ERR_NO_MEM;
    }
    int rc = MPI_SUCCESS;
    for (int k = 0; k < na && rc == MPI_SUCCESS; k++) {
        if (!a[k].is_child) {
            for (int j = 0; j < npoints && rc == MPI_SUCCESS; j++)
                rc = mm__serve_edge(cs, a[k].peer, 1);
            continue;
        }
        /* Point 0 waits for the parent to be synced itself; the span starts after it. The
         * children of one round are staggered by their index in the round. */
        rc = mm__measure_edge(cs, a[k].peer, &rules, &pts[0]);
        int64_t start = mm_timer_now(cs->timer);
        /* index in the round: rank − 2^k, which is the parent's rank */
        int64_t stagger = mm__stagger_ns(mm__topdown_parent(cs->rank), npoints, span_s);
        int used = npoints;
        for (int j = 1; j < npoints && rc == MPI_SUCCESS; j++) {
            mm_timer_sleep_until(cs->timer, mm__point_time(start, j, npoints, span_s) + stagger);
            rc = mm__measure_edge(cs, a[k].peer, &rules, &pts[j]);
            /* the early stop: the fit is already as good as the launch needs (cs->params) */
            if (rc == MPI_SUCCESS && cs->params.fit_target_ns > 0 && j + 1 >= MM_FIT_MIN_POINTS &&
                j + 1 < npoints) {
                mm_clock_model m = mm__edge_model(pts, j + 1);
                double e = mm__fit_error_ns(pts, j + 1, &m, cs->params.fit_horizon_s);
                if (e >= 0 && e <= (double)cs->params.fit_target_ns) used = j + 1;
            }
            if (used < npoints) break;
        }
        /* the parent serves npoints measurements: each one not taken is declined at once */
        for (int j = used; j < npoints && rc == MPI_SUCCESS; j++) rc = mm_offset_decline(cs->comm, a[k].peer);
        cs->fit_points = used;
        if (rc == MPI_SUCCESS) {
            cs->model = mm__edge_model(pts, used);
            cs->parent = a[k].peer;
        }
    }
    free(pts);
    return rc;
}

int mm__bottomup_fitted_edge(mm_clocksync *cs, mm_clock_model *edge, int *parent) {
    int nfit = cs->params.nfit;
    mm_offset_result *pts = malloc((size_t)nfit * sizeof *pts);
    if (!mm_all_ok(cs->comm, pts != NULL)) {
        free(pts);
        return MPI_ERR_NO_MEM;
    }
    *parent = -1;
    int rc = mm__bottomup_passes(cs, nfit, cs->params.fit_span_s, pts, parent);
    *edge = *parent >= 0 ? mm__edge_model(pts, nfit) : mm_model_identity();
    free(pts);
    return rc;
}
