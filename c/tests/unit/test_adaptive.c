/* SPDX-License-Identifier: BSD-3-Clause */
/* test_adaptive.c — the stopping rules of --nrep auto and the size refinement of --sizes auto
 * (bench/adaptive.c), without MPI: golden values from the Python side (golden/adaptive_golden.h,
 * written by golden/adaptive_golden.py), hand-computed cases and known sequences with known
 * stopping points. */
#include <math.h>
#include <stdlib.h>

#include "golden/adaptive_golden.h"
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include "mm_adaptive.h"
#include "mm_check.h"

/* adaptive.c's dependence helpers (not in mm_adaptive.h: only the decision uses them) */
double mm__sign_phi(const double *in_order, long n, double median);
double mm__median_variance_factor(double phi);

static void check_ranks_against_python(void) {
    for (int c = 0; c < (int)(sizeof golden_confidences / sizeof golden_confidences[0]); c++) {
        for (long n = 1; n <= GOLDEN_RANK_N; n++) {
            long j = 0, k = 0;
            int rc = mm_median_ci_ranks(n, golden_confidences[c], &j, &k);
            if (golden_ranks[c][n - 1][0] == 0) {
                CHECK_EQ_INT(rc, -1);
            } else {
                CHECK_EQ_INT(rc, 0);
                CHECK_EQ_INT(j, golden_ranks[c][n - 1][0]);
                CHECK_EQ_INT(k, golden_ranks[c][n - 1][1]);
            }
        }
    }
    long j, k;
    /* Le Boudec Table A.1 by hand: n = 6 at 95 % is [x_(1), x_(6)] (coverage 1 - 2/64) */
    CHECK_EQ_INT(mm_median_ci_ranks(6, 0.95, &j, &k), 0);
    CHECK_EQ_INT(j, 1);
    CHECK_EQ_INT(k, 6);
    CHECK_EQ_INT(mm_median_ci_ranks(5, 0.95, &j, &k), -1); /* 1 - 2/32 < 95 % */
    CHECK_EQ_INT(mm_median_ci_ranks(0, 0.95, &j, &k), -1);
    CHECK_EQ_INT(mm_median_ci_ranks(10, 1.0, &j, &k), -1);
}

static void check_quantile(void) {
    int n = (int)(sizeof golden_quantile_p / sizeof golden_quantile_p[0]);
    for (int i = 0; i < n; i++) {
        double z = mm_normal_quantile(golden_quantile_p[i]);
        CHECK_NEAR(z, golden_quantile_z[i], 1e-12 * (1 + fabs(golden_quantile_z[i])));
    }
    CHECK(isnan(mm_normal_quantile(0.0)));
    CHECK(isnan(mm_normal_quantile(1.0)));
}

static int cmp(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static void check_precisions(void) {
    static double sorted[GOLDEN_SEQ_LEN];
    int nprefix = (int)(sizeof golden_prefix / sizeof golden_prefix[0]);
    for (int s = 0; s < GOLDEN_NSEQ; s++) {
        for (int p = 0; p < nprefix; p++) {
            long n = golden_prefix[p];
            for (long i = 0; i < n; i++) sorted[i] = golden_seq[s][i];
            qsort(sorted, (size_t)n, sizeof sorted[0], cmp);
            double ci = mm_precision_ci(sorted, n, 0.95), rse = mm_precision_rse(sorted, n, GOLDEN_RESOLUTION_NS);
            if (isnan(golden_precision_ci[s][p]))
                CHECK(isnan(ci));
            else
                CHECK_NEAR(ci, golden_precision_ci[s][p], 1e-12);
            if (isnan(golden_precision_rse[s][p]))
                CHECK(isnan(rse));
            else
                CHECK_NEAR(rse, golden_precision_rse[s][p], 1e-9 * golden_precision_rse[s][p]);
        }
    }
    /* by hand: 1..9 -> median 5, 95 % ranks (2, 8) -> [2, 8], precision 3/5 */
    double nine[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    CHECK_NEAR(mm_precision_ci(nine, 9, 0.95), 0.6, 1e-15);
    /* all equal: precision 0 for both (rse: the clock term, 1 ns over 900 ns) */
    double same[9] = {100, 100, 100, 100, 100, 100, 100, 100, 100};
    CHECK_NEAR(mm_precision_ci(same, 9, 0.95), 0.0, 0);
    CHECK_NEAR(mm_precision_rse(same, 9, 1.0), 1.0 / 900, 1e-15);
    CHECK_NEAR(mm_precision_rse(same, 9, 0.0), 0.0, 0);
    CHECK(isnan(mm_precision_rse(same, 3, 1.0)));
    CHECK_NEAR(mm_sorted_median(nine, 4), 2.5, 0);
    CHECK(isnan(mm_sorted_median(nine, 0)));
}

/* The loop's decisions (every k and at nmax) on a known sequence; returns where it stopped. */
static long run_rule(const mm_stop_rule *r, const double *seq, long every, int *reason) {
    static double valid[GOLDEN_SEQ_LEN];
    for (long n = 1; n <= r->nrep_max; n++) {
        if (n % every && n != r->nrep_max) continue;
        for (long i = 0; i < n; i++) valid[i] = seq[i];
        mm_stop_decision d = mm_stop_decide(r, valid, n, n, 0.0);
        if (d.reason != MM_STOP_CONTINUE) {
            *reason = d.reason;
            return n;
        }
    }
    *reason = MM_STOP_CONTINUE;
    return -1;
}

/* Dependence (adaptive.c, mpimeter.stats.dependence): phi from the signs' lag-1 correlation and
 * the median's variance factor agree with the Python twin; alternating signs are no dependence;
 * and an AR(1) series stops later than the same values shuffled, because its interval is wider. */
static void check_dependence(void) {
    int nphi = (int)(sizeof golden_phi / sizeof golden_phi[0]);
    for (int i = 0; i < nphi; i++)
        CHECK_NEAR(mm__median_variance_factor(golden_phi[i]), golden_median_factor[i], 1e-12 * golden_median_factor[i]);
    static double sorted[200];
    for (int s = 0; s < GOLDEN_NSEQ; s++) {
        for (long i = 0; i < 200; i++) sorted[i] = golden_seq[s][i];
        qsort(sorted, 200, sizeof sorted[0], cmp);
        CHECK_NEAR(mm__sign_phi(golden_seq[s], 200, mm_sorted_median(sorted, 200)), golden_sign_phi[s], 1e-12);
    }
    double alt[10] = {1, 3, 1, 3, 1, 3, 1, 3, 1, 3}; /* r = -0.9: phi = sin(-0.45 pi) + its SE < 0 */
    CHECK_NEAR(mm__sign_phi(alt, 10, 2.0), 0.0, 0);
    CHECK_NEAR(mm__median_variance_factor(0.0), 1.0, 0);
    /* runs of 10 equal signs: 99 neighbour pairs, 9 of them change sign, over 100 squared
     * signs -> r = (99 - 2 * 9) / 100 = 0.81, phi = sin(0.81 pi / 2) + sqrt((1 - phi^2) / 100) */
    double runs[100];
    for (int i = 0; i < 100; i++) runs[i] = (i / 10) % 2 ? 2.0 : 1.0;
    double phi = sin(M_PI / 2 * 0.81);
    CHECK_NEAR(mm__sign_phi(runs, 100, 1.5), phi + sqrt((1 - phi * phi) / 100), 1e-12);
}

static void check_stopping_points(void) {
    for (int c = 0; c < (int)(sizeof golden_stops / sizeof golden_stops[0]); c++) {
        const golden_stop *g = &golden_stops[c];
        mm_stop_rule r = {g->rule, g->nmin, g->nmax, g->eps, g->conf, 0.0, GOLDEN_RESOLUTION_NS};
        for (int s = 0; s < GOLDEN_NSEQ; s++) {
            int reason = 0;
            CHECK_EQ_INT(run_rule(&r, golden_seq[s], g->every, &reason), g->at[s]);
            CHECK_EQ_INT(reason, g->reason[s]);
        }
    }
    /* constant run times: precise at once, so the minimum decides */
    double flat[100];
    for (int i = 0; i < 100; i++) flat[i] = 250.0;
    mm_stop_rule ci = {MM_NREP_CI, 30, 100, 0.02, 0.95, 0.0, 1.0};
    int reason;
    CHECK_EQ_INT(run_rule(&ci, flat, 10, &reason), 30);
    CHECK_EQ_INT(reason, MM_STOP_PRECISION);
    /* two values 1 and 2 alternating: the interval spans both, never within 2 % */
    double alt[100];
    for (int i = 0; i < 100; i++) alt[i] = i % 2 ? 2.0 : 1.0;
    CHECK_EQ_INT(run_rule(&ci, alt, 10, &reason), 100);
    CHECK_EQ_INT(reason, MM_STOP_MAX);
    /* the time budget ends it before the maximum; precision wins over both */
    double v[40];
    for (int i = 0; i < 40; i++) v[i] = alt[i];
    mm_stop_rule timed = ci;
    timed.budget_s = 1.0;
    mm_stop_decision d = mm_stop_decide(&timed, v, 40, 40, 1.5);
    CHECK_EQ_INT(d.reason, MM_STOP_BUDGET);
    /* the call sorted v: the next needs the repetition order again (sorted, the values would
     * look like one long slow phase) */
    for (int i = 0; i < 40; i++) v[i] = alt[i];
    d = mm_stop_decide(&timed, v, 40, 40, 0.5);
    CHECK_EQ_INT(d.reason, MM_STOP_CONTINUE);
    CHECK_NEAR(d.reached, 0.5 / 1.5, 1e-15); /* median 1.5, interval [1, 2] */
    for (int i = 0; i < 40; i++) v[i] = 7.0;
    d = mm_stop_decide(&timed, v, 40, 100, 5.0);
    CHECK_EQ_INT(d.reason, MM_STOP_PRECISION);
    /* too few valid run times for an interval: no precision, only max or budget stop it */
    d = mm_stop_decide(&ci, v, 5, 40, 0.0);
    CHECK(isnan(d.reached));
    CHECK_EQ_INT(d.reason, MM_STOP_CONTINUE);
    CHECK_STR(mm_nrep_rule_name(MM_NREP_RSE), "rse");
    CHECK_STR(mm_stop_reason_name(MM_STOP_MAX), "max");
    CHECK(mm_stop_reason_name(MM_STOP_CONTINUE) == NULL);
}

static int multiple_of_4(int64_t size, const void *ctx) {
    (void)ctx;
    return size % 4 == 0;
}

static void check_refinement(void) {
    /* a straight line t = 1000 + 0.5 m is predicted exactly: nothing to refine */
    int64_t m[18];
    double t[18];
    int n = 0;
    for (int64_t s = 8; s <= 1048576; s *= 2, n++) {
        m[n] = s;
        t[n] = 1000.0 + 0.5 * (double)s;
    }
    int64_t at = 0;
    double worst = -1;
    CHECK_EQ_INT(mm_refine_pick(m, t, n, 0.01, multiple_of_4, NULL, &at, &worst), -1);
    CHECK_NEAR(worst, 0.0, 1e-12);

    /* a step from 1000 ns (up to 1 KiB) to 5000 ns (from 2 KiB): by hand, segment 1024-2048 has
     * min(4, 0.8, 1) = 0.8, its neighbours 0; split at sqrt(1024 x 2048) = 1448.2 -> 1448 */
    for (int i = 0; i < n; i++) t[i] = m[i] <= 1024 ? 1000.0 : 5000.0;
    int seg = -1;
    for (int i = 0; i < n; i++)
        if (m[i] == 1024) seg = i;
    CHECK_NEAR(mm_refine_segment_error(m, t, n, seg), 0.8, 1e-15);
    CHECK_NEAR(mm_refine_segment_error(m, t, n, seg - 1), 0.0, 1e-15);
    CHECK_NEAR(mm_refine_segment_error(m, t, n, seg + 1), 0.0, 1e-15);
    CHECK_EQ_INT(mm_refine_pick(m, t, n, 0.05, multiple_of_4, NULL, &at, &worst), seg);
    CHECK_EQ_INT(at, 1448);
    CHECK_NEAR(worst, 0.8, 1e-15);

    /* refining the step to the end: every added size lies in the jump, and it ends once the
     * segment around the jump is narrower than the bound (width < 5 %) */
    int64_t mm_sizes[64];
    double mm_times[64];
    int count = n;
    for (int i = 0; i < n; i++) {
        mm_sizes[i] = m[i];
        mm_times[i] = t[i];
    }
    int added = 0, inside = 1;
    for (;;) {
        int s = mm_refine_pick(mm_sizes, mm_times, count, 0.05, multiple_of_4, NULL, &at, &worst);
        if (s < 0) break;
        inside &= at > 1024 && at < 2048 && at > mm_sizes[s] && at < mm_sizes[s + 1];
        for (int i = count; i > s + 1; i--) {
            mm_sizes[i] = mm_sizes[i - 1];
            mm_times[i] = mm_times[i - 1];
        }
        mm_sizes[s + 1] = at;
        mm_times[s + 1] = at <= 1024 ? 1000.0 : 5000.0; /* the step is at 1024 */
        count++;
        if (++added > 20) break;
    }
    CHECK(inside);
    CHECK(added >= 4 && added <= 20);
    CHECK(worst < 0.05);

    /* two points, no neighbours: the width alone (2x -> 1) */
    int64_t two[2] = {8, 16};
    double tt[2] = {100, 100};
    CHECK_NEAR(mm_refine_segment_error(two, tt, 2, 0), 1.0, 0);
    CHECK_EQ_INT(mm_refine_pick(two, tt, 2, 0.05, multiple_of_4, NULL, &at, &worst), 0);
    CHECK_EQ_INT(at, 12); /* sqrt(128) = 11.3 -> nearest multiple of 4 */
    /* nothing between 8 and 12 that is a multiple of 4: resolved as far as it goes */
    int64_t close[2] = {8, 12};
    CHECK_EQ_INT(mm_refine_pick(close, tt, 2, 0.05, multiple_of_4, NULL, &at, &worst), -1);
    CHECK_NEAR(worst, 0.0, 0);
}

int main(void) {
    check_ranks_against_python();
    check_quantile();
    check_precisions();
    check_stopping_points();
    check_dependence();
    check_refinement();
    return mm_check_summary("test_adaptive");
}
