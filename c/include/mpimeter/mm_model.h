/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_model.h — clock models: global time as a function of local time (pure math, no MPI).
 *
 * A model is  offset(local) = intercept_ns + slope * (local - anchor_ns)
 *             global(local) = local - offset(local)
 * An offset-only model has slope 0. The anchor keeps the arithmetic well-conditioned
 * (local times are ~1e13 ns; the anchor is a recent local time). */
#ifndef MM_MODEL_H
#define MM_MODEL_H
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "mm_error.h"

typedef struct mm_clock_model {
    int64_t anchor_ns;
    double slope;        /* dimensionless drift: d(offset)/d(local) */
    double intercept_ns; /* offset at local == anchor_ns */
} mm_clock_model;

static inline mm_clock_model mm_model_identity(void) {
    mm_clock_model m = {0, 0.0, 0.0};
    return m;
}

/* Evaluation and inversion: pure arithmetic, static inline here so that the conversions of
 * mm_clocksync.h (the global clock read around the measurement loop) call no function of
 * c/src/clocksync/ — this header, below every folder, calls none above it.
 * Precision: local times are ~1e13–1e15 ns. Differences (x − a) are taken in int64 (exact) and
 * only then converted to double, so a model anchored near the data loses nothing; doubles hold
 * integers exactly up to 2^53 ns (~104 days of distance from the anchor). */
static inline double mm__model_offset_exact(const mm_clock_model *m, int64_t local_ns) {
    return m->intercept_ns + m->slope * (double)(local_ns - m->anchor_ns);
}
static inline int64_t mm_model_offset_ns(const mm_clock_model *m, int64_t local_ns) {
    return (int64_t)llround(mm__model_offset_exact(m, local_ns));
}
static inline int64_t mm_model_global_ns(const mm_clock_model *m, int64_t local_ns) {
    return local_ns - mm_model_offset_ns(m, local_ns);
}
/* Local time at which the model reads `global_ns` (exact inverse of mm_model_global_ns up to
 * rounding): solves g = x − i − s·(x − a) for x, (x − a)·(1 − s) = (g − a) + i. */
static inline int64_t mm_model_local_ns(const mm_clock_model *m, int64_t global_ns) {
    double dx = ((double)(global_ns - m->anchor_ns) + m->intercept_ns) / (1.0 - m->slope);
    return m->anchor_ns + (int64_t)llround(dx);
}

/* Least-squares fit of offset against local time over n points (n >= 1; n == 1 gives an
 * offset-only model). anchor = mean local time. Returns 0, or MM_E_FAILED when n < 1. */
mm_status mm_model_fit(const int64_t *local_ns, const double *offset_ns, size_t n, mm_clock_model *out);

/* Robust fit (weighted Theil–Sen, Sievers 1978): slope = weighted median of the slopes between
 * pairs of points (pair weight w_k·w_l; for n > 512 only the pairs (k, k + n/2)), offset at the
 * anchor (mean local time) = weighted median of the points' offsets after removing the slope.
 * weight may be NULL (all 1). Exact on points on a line; unaffected by a minority of outliers
 * (a ping-pong whose best round trip was asymmetric). The clock syncs weight a point by
 * 1/RTT², its error being bounded by RTT/2. n == 1 gives an offset-only model.
 * Returns 0, or MM_E_FAILED when n < 1, a weight is not > 0, or out of memory. */
mm_status mm_model_fit_robust(const int64_t *local_ns, const double *offset_ns, const double *weight,
                              size_t n, mm_clock_model *out);

/* Composition along a path: `child` maps the child's local clock to its parent's clock,
 * `parent` maps the parent's clock to the global clock. Returns the model mapping the child's
 * local clock to global time. */
mm_clock_model mm_model_compose(const mm_clock_model *child, const mm_clock_model *parent);

#endif
