/* SPDX-License-Identifier: BSD-3-Clause */
/* test_model.c — clock models (model.c): exact fits on synthetic data, composition along a path,
 * inversion. Reference values are computed in long double from the defining formulas. */
#include <stdlib.h>
#include <string.h>

#include "mm_check.h"
#include "mm_model.h"

/* offset(x) of a model, exactly (long double) */
static long double exact_offset(const mm_clock_model *m, int64_t x) {
    return (long double)m->intercept_ns + (long double)m->slope * (long double)(x - m->anchor_ns);
}

/* A virtual clock: reads T + off + skew·T at true time T (the timer_virtual.c definition). */
typedef struct vclock {
    long double off, skew;
} vclock;
static int64_t vread(const vclock *c, long double T) {
    return (int64_t)llroundl(T + c->off + c->skew * T);
}

/* True time at which clock c reads x (exact inverse of vread before rounding). */
static long double vtime(const vclock *c, int64_t x) { return ((long double)x - c->off) / (1 + c->skew); }

/* Model of clock c against reference clock ref, from n points over [T0, T0 + span]: the local
 * readings are integers, the reference's reading at the same instant is kept unrounded, so the
 * points lie exactly on the true line. */
static mm_clock_model fit_between(const vclock *c, const vclock *ref, long double T0,
                                  long double span, int n) {
    int64_t x[64];
    double y[64];
    for (int k = 0; k < n; k++) {
        x[k] = vread(c, T0 + span * k / (n > 1 ? n - 1 : 1));
        long double T = vtime(c, x[k]);
        long double r = T + ref->off + ref->skew * T;
        y[k] = (double)((long double)x[k] - r);
    }
    mm_clock_model m;
    CHECK_EQ_INT(mm_model_fit(x, y, (size_t)n, &m), 0);
    return m;
}

static void test_fit_exact(void) {
    const int64_t a0 = 1000000000000000LL + 12345; /* 1e15 ns */
    const double s = 3.7e-5, i0 = 123.25;
    int64_t x[10];
    double y[10];
    for (int k = 0; k < 10; k++) {
        x[k] = 1000000000000000LL + (int64_t)k * 10000000; /* 10 ms apart */
        y[k] = (double)((long double)i0 + (long double)s * (long double)(x[k] - a0));
    }
    mm_clock_model m;
    CHECK_EQ_INT(mm_model_fit(x, y, 10, &m), 0);
    CHECK_NEAR(m.slope, s, 1e-15);
    /* anchor = mean local time */
    CHECK_EQ_INT(m.anchor_ns, 1000000000000000LL + 45000000);
    /* the line's value anywhere, e.g. at a0 and 1 s later */
    CHECK_NEAR((double)exact_offset(&m, a0), i0, 1e-6);
    CHECK_NEAR((double)exact_offset(&m, a0 + 1000000000), i0 + s * 1e9, 1e-6);
    CHECK_EQ_INT(mm_model_offset_ns(&m, a0 + 1000000000), 37123); /* 123.25 + 37000 */

    /* negative slope, points not evenly spaced */
    const int64_t xs[4] = {5000000000000LL, 5000000000001LL, 5000300000000LL, 5002000000000LL};
    double ys[4];
    for (int k = 0; k < 4; k++) ys[k] = -8.0e8 - 1e-4 * (double)(xs[k] - xs[0]);
    CHECK_EQ_INT(mm_model_fit(xs, ys, 4, &m), 0);
    CHECK_NEAR(m.slope, -1e-4, 1e-15);
    CHECK_NEAR((double)exact_offset(&m, xs[0]), -8.0e8, 1e-5);
}

static void test_fit_edge_cases(void) {
    mm_clock_model m;
    int64_t x1 = 700000000000000LL;
    double y1 = -42.5;
    CHECK_EQ_INT(mm_model_fit(&x1, &y1, 1, &m), 0); /* n = 1: offset only */
    CHECK_EQ_INT(m.anchor_ns, x1);
    CHECK(m.slope == 0.0);
    CHECK(m.intercept_ns == -42.5);
    CHECK_EQ_INT(mm_model_offset_ns(&m, x1 + 1000000000000LL), -43); /* llround(-42.5) */

    int64_t xs[3] = {5, 5, 5};
    double ys[3] = {1.0, 2.0, 6.0};
    CHECK_EQ_INT(mm_model_fit(xs, ys, 3, &m), 0); /* one instant: no drift information */
    CHECK(m.slope == 0.0);
    CHECK_NEAR(m.intercept_ns, 3.0, 0);
    CHECK_EQ_INT(mm_model_fit(xs, ys, 0, &m), -1);
    CHECK_EQ_INT(mm_model_fit(NULL, ys, 3, &m), -1);
}

static void test_fit_robust(void) {
    /* exact on a line, with and without weights */
    int64_t x[12];
    double y[12], w[12];
    const int64_t a = 3000000000000000LL;
    for (int k = 0; k < 12; k++) {
        x[k] = a + (int64_t)k * 6000000 + (k % 3) * 777; /* uneven spacing */
        y[k] = (double)(-5.0e8L + -8.5e-5L * (long double)(x[k] - a));
        w[k] = 1.0 / (1.0 + k);
    }
    mm_clock_model m, mw;
    CHECK_EQ_INT(mm_model_fit_robust(x, y, NULL, 12, &m), 0);
    CHECK_EQ_INT(mm_model_fit_robust(x, y, w, 12, &mw), 0);
    CHECK_NEAR(m.slope, -8.5e-5, 1e-15);
    CHECK_NEAR(mw.slope, -8.5e-5, 1e-15);
    CHECK_NEAR((double)exact_offset(&m, a), -5.0e8, 1e-4);
    CHECK_NEAR((double)exact_offset(&mw, a + 2000000000), -5.0e8 - 8.5e-5 * 2e9, 1e-4);

    /* two of twelve points off by +-1.4 us (an asymmetric round trip): the least-squares slope
     * moves, the robust one does not */
    double bad[12];
    memcpy(bad, y, sizeof bad);
    bad[10] += 1400.0;
    bad[11] -= 1400.0;
    mm_clock_model ls, rb;
    mm_model_fit(x, bad, 12, &ls);
    CHECK_EQ_INT(mm_model_fit_robust(x, bad, NULL, 12, &rb), 0);
    CHECK(fabs(ls.slope + 8.5e-5) > 1e-7);
    CHECK_NEAR(rb.slope, -8.5e-5, 1e-15);
    CHECK_NEAR((double)exact_offset(&rb, a), -5.0e8, 1e-4);

    /* weights decide: five points on line A with weight 1, seven on line B with weight 1e-6 */
    double mix[12], wm[12];
    for (int k = 0; k < 12; k++) {
        int on_a = k % 2 == 0 && k < 10;
        mix[k] = on_a ? 2e-6 * (double)(x[k] - a) : 100.0 - 3e-6 * (double)(x[k] - a);
        wm[k] = on_a ? 1.0 : 1e-6;
    }
    CHECK_EQ_INT(mm_model_fit_robust(x, mix, wm, 12, &m), 0);
    CHECK_NEAR(m.slope, 2e-6, 1e-15);
    CHECK_NEAR((double)exact_offset(&m, a), 0.0, 1e-6);

    /* even count, equal weights: the ordinary median (mean of the middle two) */
    int64_t x4[4] = {0, 1000, 2000, 3000};
    double y4[4] = {0.0, 1.0, 2.0, 3.0};
    CHECK_EQ_INT(mm_model_fit_robust(x4, y4, NULL, 4, &m), 0);
    CHECK_NEAR(m.slope, 1e-3, 1e-18);
    CHECK_EQ_INT(m.anchor_ns, 1500);
    CHECK_NEAR(m.intercept_ns, 1.5, 1e-12);

    /* n = 1, bad weights, large n (pairs k, k + n/2) */
    CHECK_EQ_INT(mm_model_fit_robust(x, y, NULL, 1, &m), 0);
    CHECK(m.slope == 0.0);
    CHECK_NEAR(m.intercept_ns, y[0], 0);
    double w0[2] = {1.0, 0.0};
    CHECK_EQ_INT(mm_model_fit_robust(x, y, w0, 2, &m), -1);
    CHECK_EQ_INT(mm_model_fit_robust(x, y, NULL, 0, &m), -1);
    enum { BIG = 1001 };
    static int64_t xb[BIG];
    static double yb[BIG];
    for (int k = 0; k < BIG; k++) {
        xb[k] = 5000000000LL + (int64_t)k * 100000;
        yb[k] = 12.0 + 1e-5 * (double)(xb[k] - 5000000000LL) + (k % 97 == 0 ? 5000.0 : 0.0);
    }
    CHECK_EQ_INT(mm_model_fit_robust(xb, yb, NULL, BIG, &m), 0);
    CHECK_NEAR(m.slope, 1e-5, 1e-15);
    CHECK_NEAR((double)exact_offset(&m, 5000000000LL), 12.0, 1e-6);
}

static void test_identity(void) {
    mm_clock_model id = mm_model_identity();
    CHECK_EQ_INT(mm_model_global_ns(&id, 1234567890123456789LL), 1234567890123456789LL);
    CHECK_EQ_INT(mm_model_local_ns(&id, -5), -5);
}

/* A path of three edges: L3 -> L2 -> L1 -> root. Fitting each edge and composing must give the
 * model fitted directly between L3 and the root. */
static void test_compose_path(void) {
    const vclock root = {0, 0};
    const vclock l1 = {7.5e8L, 8.0e-5L}, l2 = {-3.25e8L, -6.0e-5L}, l3 = {9.9e8L, 1.0e-4L};
    const long double T0 = 2.0e14L, span = 2.0e8L;
    mm_clock_model e1 = fit_between(&l1, &root, T0, span, 16);
    mm_clock_model e2 = fit_between(&l2, &l1, T0 + 1e9L, span, 16);
    mm_clock_model e3 = fit_between(&l3, &l2, T0 + 2e9L, span, 16);
    mm_clock_model direct = fit_between(&l3, &root, T0 + 3e9L, span, 16);

    mm_clock_model m21 = mm_model_compose(&e2, &e1);
    mm_clock_model path = mm_model_compose(&e3, &m21);
    mm_clock_model m32 = mm_model_compose(&e3, &e2);
    mm_clock_model path_other_order = mm_model_compose(&m32, &e1);
    CHECK_NEAR(path.slope, direct.slope, 1e-13);
    CHECK_NEAR(path_other_order.slope, direct.slope, 1e-13);
    for (int k = -2; k <= 3; k++) {
        long double T = T0 + k * 5e9L; /* up to 15 s away from the fits */
        int64_t x = vread(&l3, T);
        double want = (double)exact_offset(&direct, x);
        CHECK_NEAR((double)exact_offset(&path, x), want, 1e-3);
        CHECK_NEAR((double)exact_offset(&path_other_order, x), want, 1e-3);
        /* and the truth: global = the root's reading at T */
        CHECK_NEAR((double)mm_model_global_ns(&path, x), (double)vread(&root, T), 1.0);
    }
    /* composition applied step by step (with rounding at each step) agrees within 2 ns */
    int64_t x = vread(&l3, T0 + 7e9L);
    int64_t stepwise = mm_model_global_ns(&e1, mm_model_global_ns(&e2, mm_model_global_ns(&e3, x)));
    CHECK(llabs(stepwise - mm_model_global_ns(&path, x)) <= 2);
}

static void test_invert(void) {
    const double slopes[] = {0.0, 1e-4, -1e-4, 3.3e-7, -9.99e-5};
    const double intercepts[] = {0.0, 1e9, -1e9, 0.5, -123456.75};
    const int64_t anchors[] = {0, 1000000000000000LL, 999999123456789LL};
    int worst = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t s = 0; s < 5; s++)
            for (size_t i = 0; i < 5; i++) {
                mm_clock_model m = {anchors[a], slopes[s], intercepts[i]};
                for (int64_t x = 1000000000000000LL - 3000000000LL;
                     x <= 1000000000000000LL + 3000000000LL; x += 999999937LL) {
                    int64_t back = mm_model_local_ns(&m, mm_model_global_ns(&m, x));
                    int64_t d = llabs(back - x);
                    if (d > worst) worst = (int)d;
                }
            }
    CHECK(worst <= 1);
    /* exact on an integer model */
    mm_clock_model m = {1000000000000000LL, 0.5, 10.0};
    CHECK_EQ_INT(mm_model_global_ns(&m, 1000000000000100LL), 1000000000000040LL);
    CHECK_EQ_INT(mm_model_local_ns(&m, 1000000000000040LL), 1000000000000100LL);
}

int main(void) {
    test_fit_exact();
    test_fit_edge_cases();
    test_fit_robust();
    test_identity();
    test_compose_path();
    test_invert();
    return mm_check_summary("model");
}
