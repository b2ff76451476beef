/* SPDX-License-Identifier: BSD-3-Clause */
/* model.c — clock models: global time as a function of local time. Pure math, no MPI.
 *
 * What: fitting (the weighted Theil–Sen fit the algorithms use, and the ordinary least-squares
 *   fit it starts from) and composition of the models of mm_model.h,
 *   offset(x) = i + s·(x − a),   global(x) = x − offset(x); evaluation and inversion are
 *   static inline in mm_model.h (the clock conversions around the measurement loop use them).
 * Why: the drift-aware algorithms (jk, hca, hca2, hca3) learn such a line per edge from offset
 *   measurements taken at different times and chain edges along a tree; keeping the arithmetic
 *   here makes it testable to exact values without MPI (CONTRIBUTING.md, principle 6).
 * Cost: O(n) for a fit of n points; O(1) otherwise.
 * Sources: the linear model of Jones & Koenig (CCPE 2013) and Hunold & Carpen-Amarie 2016 §3.2.1
 *   (slope = drift, intercept); the composition formula is derived below.
 *
 * Precision: as mm_model.h says, differences (x − a) are taken in int64 (exact) and only then
 * converted to double. */
#include <math.h>
#include <stdlib.h>

#include "mm_model.h"
#include "mm_error.h"

/* Ordinary least squares of offset on local time, centred on the anchor (the rounded mean local
 * time) so that the sums stay small; m = mean of (x − a) is then below 1 ns but is kept exact. */
mm_status mm_model_fit(const int64_t *local_ns, const double *offset_ns, size_t n, mm_clock_model *out) {
    if (n < 1 || !local_ns || !offset_ns || !out) return MM_E_FAILED;
    double mean_from_first = 0.0;
    for (size_t k = 0; k < n; k++) mean_from_first += (double)(local_ns[k] - local_ns[0]);
    mean_from_first /= (double)n;
    int64_t anchor = local_ns[0] + (int64_t)llround(mean_from_first);

    double mx = 0.0, my = 0.0;
    for (size_t k = 0; k < n; k++) {
        mx += (double)(local_ns[k] - anchor);
        my += offset_ns[k];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0.0, sxy = 0.0;
    for (size_t k = 0; k < n; k++) {
        double dx = (double)(local_ns[k] - anchor) - mx;
        sxx += dx * dx;
        sxy += dx * (offset_ns[k] - my);
    }
    /* n == 1, or all points at one instant: no information on drift, offset-only. */
    double slope = sxx > 0.0 ? sxy / sxx : 0.0;
    out->anchor_ns = anchor;
    out->slope = slope;
    out->intercept_ns = my - slope * mx; /* the line's value at x = anchor */
    return 0;
}

typedef struct mm__weighted {
    double value, weight;
} mm__weighted;

static int mm__cmp_weighted(const void *a, const void *b) {
    double x = ((const mm__weighted *)a)->value, y = ((const mm__weighted *)b)->value;
    return (x > y) - (x < y);
}

/* Weighted median of v[0..n-1] (n >= 1), reordering v: the smallest value at which the
 * cumulative weight reaches half the total; the mean of the two middle values when it reaches
 * exactly half (so that equal weights give the ordinary median). */
static double mm__weighted_median(mm__weighted *v, size_t n) {
    qsort(v, n, sizeof *v, mm__cmp_weighted);
    double total = 0.0, run = 0.0;
    for (size_t k = 0; k < n; k++) total += v[k].weight;
    for (size_t k = 0; k < n; k++) {
        run += v[k].weight;
        if (run == 0.5 * total && k + 1 < n) return 0.5 * (v[k].value + v[k + 1].value);
        if (run > 0.5 * total) return v[k].value;
    }
    return v[n - 1].value;
}

/* Theil 1950, Sen 1968; weighted pairs as in Sievers 1978. The anchor is the mean local time,
 * as for the least-squares fit. */
mm_status mm_model_fit_robust(const int64_t *local_ns, const double *offset_ns, const double *weight,
                              size_t n, mm_clock_model *out) {
    mm_clock_model ls;
    if (mm_model_fit(local_ns, offset_ns, n, &ls) != 0) return MM_E_FAILED;
    for (size_t k = 0; weight && k < n; k++)
        if (!(weight[k] > 0.0) || !isfinite(weight[k])) return MM_E_FAILED;
    size_t npairs = n > 512 ? n / 2 : n * (n - 1) / 2;
    mm__weighted *v = malloc((npairs > n ? npairs : n) * sizeof *v);
    if (!v) return MM_E_FAILED;
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        size_t first = n > 512 ? k + n / 2 : k + 1, last = n > 512 ? first + 1 : n;
        if (n > 512 && k >= n / 2) break;
        for (size_t l = first; l < last && l < n; l++) {
            if (local_ns[l] == local_ns[k]) continue;
            v[m].value = (offset_ns[l] - offset_ns[k]) / (double)(local_ns[l] - local_ns[k]);
            v[m].weight = weight ? weight[k] * weight[l] : 1.0;
            m++;
        }
    }
    double slope = m > 0 ? mm__weighted_median(v, m) : 0.0;
    for (size_t k = 0; k < n; k++) {
        v[k].value = offset_ns[k] - slope * (double)(local_ns[k] - ls.anchor_ns);
        v[k].weight = weight ? weight[k] : 1.0;
    }
    out->anchor_ns = ls.anchor_ns;
    out->slope = slope;
    out->intercept_ns = mm__weighted_median(v, n);
    free(v);
    return 0;
}

/* child  c: y = x − ic − sc·(x − ac)   (child local x -> parent clock y)
 * parent p: g = y − ip − sp·(y − ap)   (parent clock y -> global g)
 * Composed offset o(x) = x − g(y(x)) is linear in x:
 *   slope      d o/dx = 1 − (1 − sc)(1 − sp) = sc + sp − sc·sp
 *   at x = ac: y = ac − ic, so o(ac) = ic + ip + sp·(ac − ic − ap).
 * The composed model keeps the child's anchor. */
mm_clock_model mm_model_compose(const mm_clock_model *child, const mm_clock_model *parent) {
    mm_clock_model m;
    m.anchor_ns = child->anchor_ns;
    m.slope = child->slope + parent->slope - child->slope * parent->slope;
    m.intercept_ns = child->intercept_ns + parent->intercept_ns +
                     parent->slope * ((double)(child->anchor_ns - parent->anchor_ns) -
                                      child->intercept_ns);
    return m;
}
