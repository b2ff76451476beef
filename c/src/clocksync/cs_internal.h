/* SPDX-License-Identifier: BSD-3-Clause */
/* cs_internal.h — what the clock-sync algorithm files share (tree.c): tree shapes, one edge
 * measurement with its log record, the point schedule of a fit, and the gather-compose-scatter
 * of per-edge models. Internal to c/src/clocksync/. */
#ifndef MM_CS_INTERNAL_H
#define MM_CS_INTERNAL_H
#include "mm_clocksync.h"

/* One step of a rank in a tree: measure against `peer` (is_child) or answer it. */
typedef struct mm__action {
    int peer;
    int is_child;
} mm__action;
enum { MM__MAX_ACTIONS = 72 };

/* Hoefler 2010 §3.2 (netgauge, hca, hca2): over the largest power-of-two group t <= p, round k
 * pairs (r, r + 2^k) for r mod 2^(k+1) == 0; ranks r >= t pair with r − t afterwards. The higher
 * rank of a pair is the child. Fills a (capacity MM__MAX_ACTIONS) in execution order; returns
 * the count. */
int mm__bottomup_actions(int rank, int nprocs, mm__action *a);
/* Top-down binomial tree (hca3, hca3o): round k, ranks r < 2^k answer r + 2^k. */
int mm__topdown_actions(int rank, int nprocs, mm__action *a);
/* The rank's parent in those trees (-1 for rank 0). */
int mm__bottomup_parent(int rank, int nprocs);
int mm__topdown_parent(int rank);

/* Measures this rank's local clock against `peer` (which answers with mm__serve_edge), logs one
 * MM_SYNC_EDGE record. Returns MPI_SUCCESS or an MPI error. */
int mm__measure_edge(mm_clocksync *cs, int peer, const mm_offset_rules *rules,
                     mm_offset_result *res);
/* Answers `child`'s measurement with this rank's local clock, or its current global clock. */
int mm__serve_edge(mm_clocksync *cs, int child, int answer_with_global);

/* Local time of fit point j of n spread over span_s from start (point 0 at start). */
int64_t mm__point_time(int64_t start_ns, int j, int n, double span_s);
/* Where in each interval between fit points a child measures: edges that would run at the same
 * time (pairs of one tree level, children of one round) are spread over MM__STAGGER_SLOTS slots
 * of the interval by their index, so that they rarely measure concurrently. Concurrent pairs
 * disturb each other when ranks share cores (or a NIC); on dedicated cores this costs nothing.
 * Returns the delay after the interval's start. */
enum { MM__STAGGER_SLOTS = 4 };
int64_t mm__stagger_ns(int index, int n, double span_s);

/* Model of one edge from offset measurements (offset = reference − mine): n == 1 gives an
 * offset-only model anchored at the measurement, n > 1 a line fitted by weighted Theil–Sen
 * (mm_model_fit_robust, weights 1/RTT²). */
mm_clock_model mm__edge_model(const mm_offset_result *pts, int n);
/* Pure: the predicted error (ns) of model m, fitted to the n points, horizon_s after the last
 * point: the least-squares prediction error sigma * sqrt(1/n + (t - mean x)^2 / Sxx), sigma the
 * residuals' standard deviation about m (at least 1 ns: offsets are whole nanoseconds); -1 when
 * n < 3 or the points share one local time. */
double mm__fit_error_ns(const mm_offset_result *pts, int n, const mm_clock_model *m, double horizon_s);
/* Keeps the slope, moves the line through one (newer) measurement: anchor = its time,
 * intercept = its offset (model sign). */
mm_clock_model mm__reanchor(const mm_clock_model *m, const mm_offset_result *point);

/* Collective: gathers every rank's edge model (its local clock -> its parent's clock) and
 * parent to rank 0, composes them into local -> global models (parents have lower ranks) and
 * scatters; sets cs->model and cs->parent. */
int mm__compose_and_scatter(mm_clocksync *cs, int parent, const mm_clock_model *edge);

/* The bottom-up tree's measuring phase for netgauge, hca, hca2: npasses passes over this rank's
 * actions, fit point j of every child at mm__point_time(start, j, npasses, span_s). A rank is a
 * child in at most one action; its measurements go to pts[0..npasses-1] and *parent is set
 * (-1 for rank 0). */
int mm__bottomup_passes(mm_clocksync *cs, int npasses, double span_s, mm_offset_result *pts,
                        int *parent);

/* The fitted edge of hca and hca2: params.nfit bottom-up passes over params.fit_span_s, the
 * edge to *parent fitted from them (mm__edge_model; the identity at rank 0). Collective; an MPI
 * code, MPI_ERR_NO_MEM on every rank when some rank has no memory for the points. */
int mm__bottomup_fitted_edge(mm_clocksync *cs, mm_clock_model *edge, int *parent);

/* The top-down tree of hca3/hca3o: as a child, npoints measurements of its local clock against
 * the parent's *global* clock spread over span_s, fitted into cs->model (local -> global); then,
 * as a parent, answers each child npoints times with its global clock. */
int mm__topdown_sync(mm_clocksync *cs, int npoints, double span_s);

#endif
