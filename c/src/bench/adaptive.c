/* SPDX-License-Identifier: BSD-3-Clause */
/* adaptive.c — how many measurements are enough: the stopping rules of --nrep auto and the size
 * refinement of --sizes auto, as pure functions (mm_adaptive.h; no MPI, no clock, no I/O).
 *
 * Repetitions. Every k repetitions rank 0 asks whether the valid run times so far are precise
 * enough, and all ranks stop together on its answer (bench/decide.c):
 * - `ci` (Hoefler & Belli 2015 §4.2.2, "non-normally distributed data"): recompute the 1 - alpha
 *   nonparametric interval of the median (Le Boudec 2011, Thm. 2.1; exact binomial ranks for
 *   n <= 70, the normal approximation above, as mpimeter.stats.intervals does) and stop once both
 *   bounds lie within +-e of the median. Needs n >= 6 at 95 %.
 * - `rse` (SKaMPI, Reussner et al. 1998 §3.1): stop when the standard error of the average, over
 *   the average, is below eps; the average is the 25 %-trimmed mean (SKaMPI ignores the fastest
 *   and slowest quarter), and the total time must reach the clock's resolution / eps. SKaMPI
 *   takes sigma / sqrt(n) of the kept half, which understates the standard error of a trimmed
 *   mean (about twofold for normal data); the Tukey-McLaughlin error of the winsorized sample is
 *   the one that belongs to it (Wilcox, "Introduction to Robust Estimation", §3.2), so that is
 *   used.
 * Either rule also stops at nrep_max and at the per-test time budget.
 *
 * Dependence. Repetitions are not independent: a slow phase of the machine lasts many of them.
 * With AR(1) run times (phi = 0.5) the i.i.d. interval at the stop covered 81.7 %. So the
 * decision first measures how much the series hangs together, on the signs of x_i - median (robust
 * to outliers, and exactly what the median's variance depends on): their lag-1 autocorrelation
 * r gives phi = sin(pi r / 2), the AR(1) coefficient of a Gaussian series with that sign
 * correlation (the arcsine law), taken one standard error sqrt((1 - phi^2) / n) up, and from it
 * the median's variance factor
 * f = 1 + 2 sum_h (2/pi) asin(phi^h) (the long-run variance of the signs over their variance).
 * The interval then uses n / f effective repetitions: the ranks of n / f values, at the same
 * quantile positions, mapped onto the n values. The rse rule's standard error is widened by
 * sqrt((1 + phi) / (1 - phi)), the factor of a mean. phi <= 0: f = 1, the i.i.d. rule. The Python
 * twin (mpimeter.stats.dependence) writes the unit tests' golden stopping points.
 *
 * Sizes (SKaMPI §3.2): a segment (m_b, t_b)-(m_c, t_c) between two measured sizes is judged by
 * how badly its neighbours, extended linearly, predict its ends: min(|D1|/t_b, |D2|/t_c,
 * (m_c - m_b)/m_b) — the minimum (footnote 5: the maximum refines too much near jumps); the
 * worst segment is split at sqrt(m_b m_c), until every error is below the bound.
 *
 * Cost: a sort of the n valid run times per decision (O(n log n)); O(n) per refinement step. */
#include <math.h>
#include <stdlib.h>

#include "mm_adaptive.h"
#include "mm_error.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define MM__PHI_MAX 0.99 /* as mpimeter.stats.dependence.PHI_MAX */
enum { MM__LAGS_MAX = 100000 };

/* not in mm_adaptive.h: used by the unit test through its own declarations */
double mm__sign_phi(const double *in_order, long n, double median);
double mm__median_variance_factor(double phi);

/* Wichura (1988), Algorithm AS 241 (PPND16): rational approximations in three ranges. */
static double mm__poly(const double *c, int n, double x) {
    double v = c[n - 1];
    for (int i = n - 2; i >= 0; i--) v = v * x + c[i];
    return v;
}

double mm_normal_quantile(double p) {
    static const double a[8] = {3.3871328727963666080e0, 1.3314166789178437745e+2,
                                1.9715909503065514427e+3, 1.3731693765509461125e+4,
                                4.5921953931549871457e+4, 6.7265770927008700853e+4,
                                3.3430575583588128105e+4, 2.5090809287301226727e+3};
    static const double b[8] = {1.0, 4.2313330701600911252e+1, 6.8718700749205790830e+2,
                                5.3941960214247511077e+3, 2.1213794301586595867e+4,
                                3.9307895800092710610e+4, 2.8729085735721942674e+4,
                                5.2264952788528545610e+3};
    static const double c[8] = {1.42343711074968357734e0, 4.63033784615654529590e0,
                                5.76949722146069140550e0, 3.64784832476320460504e0,
                                1.27045825245236838258e0, 2.41780725177450611770e-1,
                                2.27238449892691845833e-2, 7.74545014278341407640e-4};
    static const double d[8] = {1.0, 2.05319162663775882187e0, 1.67638483018380384940e0,
                                6.89767334985100004550e-1, 1.48103976427480074590e-1,
                                1.51986665636164571966e-2, 5.47593808499534494600e-4,
                                1.05075007164441684324e-9};
    static const double e[8] = {6.65790464350110377720e0, 5.46378491116411436990e0,
                                1.78482653991729133580e0, 2.96560571828504891230e-1,
                                2.65321895265761230930e-2, 1.24266094738807843860e-3,
                                2.71155556874348757815e-5, 2.01033439929228813265e-7};
    static const double f[8] = {1.0, 5.99832206555887937690e-1, 1.36929880922735805310e-1,
                                1.48753612908506148525e-2, 7.86869131145613259100e-4,
                                1.84631831751005468180e-5, 1.42151175831644588870e-7,
                                2.04426310338993978564e-15};
    if (!(p > 0.0 && p < 1.0)) return NAN;
    double q = p - 0.5;
    if (fabs(q) <= 0.425) {
        double r = 0.180625 - q * q;
        return q * mm__poly(a, 8, r) / mm__poly(b, 8, r);
    }
    double r = sqrt(-log(q < 0 ? p : 1.0 - p));
    double v = r <= 5.0 ? mm__poly(c, 8, r - 1.6) / mm__poly(d, 8, r - 1.6)
                        : mm__poly(e, 8, r - 5.0) / mm__poly(f, 8, r - 5.0);
    return q < 0 ? -v : v;
}

enum { MM__EXACT_MAX_N = 70 }; /* as mpimeter.stats.intervals.EXACT_MAX_N */

mm_status mm_median_ci_ranks(long n, double confidence, long *j, long *k) {
    if (n < 1 || !(confidence > 0.0 && confidence < 1.0)) return MM_E_FAILED;
    double alpha = 1.0 - confidence;
    if (n <= MM__EXACT_MAX_N) {
        /* count the CDF values B(0) .. B(n-1) at or below alpha/2 (with the same 1e-12 slack as
         * the Python side, for values that are alpha/2 up to rounding) */
        double pmf = ldexp(1.0, -(int)n), cdf = 0.0, threshold = alpha / 2 * (1 + 1e-12);
        long count = 0;
        for (long i = 0; i < n; i++) {
            cdf += pmf;
            if (cdf <= threshold) count++;
            pmf = pmf * (double)(n - i) / (double)(i + 1);
        }
        if (count < 1) return MM_E_FAILED;
        *j = count;
        *k = n + 1 - count;
        return 0;
    }
    double z = mm_normal_quantile(1.0 - alpha / 2), root = sqrt((double)n);
    long lo = (long)floor(((double)n - z * root) / 2), hi = (long)ceil(1 + ((double)n + z * root) / 2);
    *j = lo < 1 ? 1 : lo;
    *k = hi > n ? n : hi;
    return 0;
}

static int mm__cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

void mm_sort_doubles(double *v, long n) {
    if (n > 1) qsort(v, (size_t)n, sizeof *v, mm__cmp_double);
}

double mm_sorted_median(const double *sorted, long n) {
    if (n <= 0) return NAN;
    return n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double mm_precision_ci(const double *sorted, long n, double confidence) {
    long j, k;
    if (mm_median_ci_ranks(n, confidence, &j, &k) != 0) return NAN;
    double median = mm_sorted_median(sorted, n);
    if (!(median > 0)) return NAN;
    double below = median - sorted[j - 1], above = sorted[k - 1] - median;
    return (below > above ? below : above) / median;
}

double mm_precision_rse(const double *sorted, long n, double resolution_ns) {
    if (n < 4) return NAN;
    long g = (long)(0.25 * (double)n); /* cut from each end, as scipy's trim_mean/trimmed_stde */
    double trimmed = 0.0, total = 0.0;
    for (long i = 0; i < n; i++) {
        total += sorted[i];
        if (i >= g && i < n - g) trimmed += sorted[i];
    }
    trimmed /= (double)(n - 2 * g);
    if (!(trimmed > 0)) return NAN;
    /* the winsorized sample: the g lowest set to x_(g+1), the g highest to x_(n-g) */
    double wmean = 0.0, wss = 0.0;
    for (long i = 0; i < n; i++) wmean += sorted[i < g ? g : i >= n - g ? n - g - 1 : i];
    wmean /= (double)n;
    for (long i = 0; i < n; i++) {
        double dev = sorted[i < g ? g : i >= n - g ? n - g - 1 : i] - wmean;
        wss += dev * dev;
    }
    double se = sqrt(wss / (double)(n - 1)) / (0.5 * sqrt((double)n));
    double rse = se / trimmed;
    double clock = total > 0 ? resolution_ns / total : INFINITY;
    return rse > clock ? rse : clock;
}

double mm__sign_phi(const double *in_order, long n, double median) {
    double same = 0.0, total = 0.0;
    for (long i = 0; i < n; i++) {
        double si = (in_order[i] > median) - (in_order[i] < median);
        total += si * si;
        if (i + 1 < n) same += si * (double)((in_order[i + 1] > median) - (in_order[i + 1] < median));
    }
    if (!(total > 0)) return 0.0;
    double phi = sin(M_PI / 2 * (same / total));
    /* one standard error up: a rule that stops on a narrow interval stops where phi came out
     * low by chance (coverage at the stop on AR(1) phi = 0.5: 92 % without, 95 % with) */
    double se = 1.0 - phi * phi;
    phi += sqrt((se > 0 ? se : 0.0) / (double)n);
    return phi < 0 ? 0.0 : phi > MM__PHI_MAX ? MM__PHI_MAX : phi;
}

double mm__median_variance_factor(double phi) {
    if (!(phi > 0)) return 1.0;
    double f = 1.0, power = phi;
    for (long h = 1; h <= MM__LAGS_MAX && power > 1e-12; h++, power *= phi) f += 2.0 * (2.0 / M_PI) * asin(power);
    return f;
}

/* ci with n / f effective values: their ranks' quantile positions j_e / (n_e + 1) and
 * k_e / (n_e + 1) mapped onto the n sorted values (outwards). f = 1: mm_precision_ci. */
static double mm__precision_ci_dependent(const double *sorted, long n, double confidence, double f) {
    if (!(f > 1.0)) return mm_precision_ci(sorted, n, confidence);
    long ne = (long)floor((double)n / f), je, ke;
    if (mm_median_ci_ranks(ne, confidence, &je, &ke) != 0) return NAN;
    long j = (long)floor((double)je * (double)(n + 1) / (double)(ne + 1));
    long k = (long)ceil((double)ke * (double)(n + 1) / (double)(ne + 1));
    j = j < 1 ? 1 : j;
    k = k > n ? n : k;
    double median = mm_sorted_median(sorted, n);
    if (!(median > 0)) return NAN;
    double below = median - sorted[j - 1], above = sorted[k - 1] - median;
    return (below > above ? below : above) / median;
}

mm_stop_decision mm_stop_decide(const mm_stop_rule *r, double *valid, long nvalid, long recorded,
                                double elapsed_s) {
    mm_stop_decision d = {MM_STOP_CONTINUE, NAN};
    /* the signs need the repetition order, the interval the sorted values: a copy (without
     * memory, the i.i.d. rule: phi = 0) */
    double *in_order = nvalid > 0 ? malloc((size_t)nvalid * sizeof *in_order) : NULL;
    if (in_order)
        for (long i = 0; i < nvalid; i++) in_order[i] = valid[i];
    mm_sort_doubles(valid, nvalid);
    double phi = in_order ? mm__sign_phi(in_order, nvalid, mm_sorted_median(valid, nvalid)) : 0.0;
    free(in_order);
    if (r->rule == MM_NREP_RSE) {
        d.reached = mm_precision_rse(valid, nvalid, r->resolution_ns) * sqrt((1 + phi) / (1 - phi));
    } else {
        d.reached = mm__precision_ci_dependent(valid, nvalid, r->confidence, mm__median_variance_factor(phi));
    }
    if (recorded >= r->nrep_min && isfinite(d.reached) && d.reached <= r->precision)
        d.reason = MM_STOP_PRECISION;
    else if (recorded >= r->nrep_max)
        d.reason = MM_STOP_MAX;
    else if (r->budget_s > 0 && elapsed_s >= r->budget_s)
        d.reason = MM_STOP_BUDGET;
    return d;
}

/* ---- size refinement ---- */

/* t at m on the line through (m1, t1) and (m2, t2). */
static double mm__line(double m1, double t1, double m2, double t2, double m) {
    return t1 + (t2 - t1) / (m2 - m1) * (m - m1);
}

double mm_refine_segment_error(const int64_t *sizes, const double *times_ns, int n, int i) {
    if (i < 0 || i + 1 >= n) return 0.0;
    double mb = (double)sizes[i], mc = (double)sizes[i + 1];
    double tb = times_ns[i], tc = times_ns[i + 1];
    /* a zero-byte (or zero-ns) size has no relative width: only the predictions judge it */
    double error = mb > 0 ? (mc - mb) / mb : INFINITY;
    if (i + 2 < n && tb > 0) { /* the next segment, extended left, predicts t_b */
        double d1 = tb - mm__line(mc, tc, (double)sizes[i + 2], times_ns[i + 2], mb);
        double rel = fabs(d1) / tb;
        if (rel < error) error = rel;
    }
    if (i >= 1 && tc > 0) { /* the previous segment, extended right, predicts t_c */
        double d2 = tc - mm__line((double)sizes[i - 1], times_ns[i - 1], mb, tb, mc);
        double rel = fabs(d2) / tc;
        if (rel < error) error = rel;
    }
    return isfinite(error) ? error : 1.0; /* two points, the first at 0: split once */
}

/* The accepted size strictly between lo and hi nearest `middle`, or -1. Looks at most
 * MM__SEARCH candidates on each side (datatype multiples are found within a few). */
enum { MM__SEARCH = 4096 };
static int64_t mm__size_between(int64_t lo, int64_t hi, double middle,
                                int (*size_ok)(int64_t, const void *), const void *ctx) {
    int64_t centre = (int64_t)llround(middle);
    for (int64_t step = 0; step <= MM__SEARCH; step++) {
        int64_t below = centre - step, above = centre + step;
        if (below <= lo && above >= hi) break;
        if (below > lo && below < hi && size_ok(below, ctx)) return below;
        if (step > 0 && above > lo && above < hi && size_ok(above, ctx)) return above;
    }
    return -1;
}

int mm_refine_pick(const int64_t *sizes, const double *times_ns, int n, double bound,
                   int (*size_ok)(int64_t size, const void *ctx), const void *ctx,
                   int64_t *new_size, double *max_error) {
    int best = -1;
    int64_t best_size = -1;
    double worst = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        double middle = sqrt((double)sizes[i] * (double)sizes[i + 1]);
        if (sizes[i] == 0) middle = (double)sizes[i + 1] / 2; /* no geometric middle with 0 */
        int64_t at = mm__size_between(sizes[i], sizes[i + 1], middle, size_ok, ctx);
        if (at < 0) continue; /* nothing can be measured in between: resolved as far as it goes */
        double error = mm_refine_segment_error(sizes, times_ns, n, i);
        if (best < 0 || error > worst) {
            best = i;
            worst = error;
            best_size = at;
        }
    }
    *max_error = worst;
    if (best < 0 || worst < bound) return -1;
    *new_size = best_size;
    return best;
}
