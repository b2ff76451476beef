/* SPDX-License-Identifier: BSD-3-Clause */
/* test_offset.c — the ping-pong estimators of offset.c with simulated round trips (no MPI):
 * accuracy against a known offset under asymmetric random delays, the exact behaviour of the
 * stopping rules, and the two bugs of other implementations listed in docs/ALGORITHMS.md ("Building blocks"). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_check.h"
#include "mm_error.h"
#include "mm_clocksync.h"

/* splitmix64, for reproducible delays */
static uint64_t next_u64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static double uniform(uint64_t *s) { return (double)(next_u64(s) >> 11) * 0x1.0p-53; }
/* a heavy-ish tail: base + exponential with the given mean */
static int64_t delay(uint64_t *s, double base, double mean) {
    return (int64_t)(base - mean * log(1.0 - uniform(s)));
}

/* The simulated pair: my clock is true time, the peer's reads T + offset + skew·(T − T0). */
typedef struct sim {
    uint64_t rng;
    int64_t now, offset;
    double skew;
    double fwd_base, fwd_mean, back_base, back_mean;
} sim;

/* One round trip starting now; returns the estimator's verdict. */
static int sim_round(sim *s, mm_offset_estimator *e) {
    int64_t t1 = s->now;
    int64_t arrive = t1 + delay(&s->rng, s->fwd_base, s->fwd_mean);
    int64_t t2 = arrive + s->offset + (int64_t)(s->skew * (double)arrive);
    int64_t t3 = arrive + delay(&s->rng, s->back_base, s->back_mean);
    s->now = t3 + 1000 + (int64_t)(uniform(&s->rng) * 5000);
    return mm_offset_add(e, t1, t2, t3);
}

static void run_until_done(sim *s, mm_offset_estimator *e) {
    while (!sim_round(s, e)) {
    }
}

static mm_clocksync_params params(int cap, int n, int min_rounds) {
    mm_clocksync_params p = {16, cap, n, min_rounds, 0.1, 0, 0.0};
    return p;
}

/* Known offset, asymmetric delays (the forward path slower and noisier than the way back):
 * both estimators are within half the best RTT of the truth, every time. */
static void test_accuracy(void) {
    int worst_minrtt_ok = 1, worst_bounds_ok = 1, crossed = 0;
    double sum_err_minrtt = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        for (int method = 0; method < 2; method++) {
            sim s = {seed, 1000000000000LL, -987654321LL + (int64_t)seed * 7919, 0.0,
                     600, 3000, 300, 150};
            mm_clocksync_params p = params(1000, 20, 10);
            mm_offset_rules r = method == 0 ? mm_offset_rules_min_rtt(&p)
                                            : mm_offset_rules_bounds(&p, 0);
            mm_offset_estimator e;
            mm_offset_init(&e, &r);
            run_until_done(&s, &e);
            mm_offset_result res;
            mm_offset_result_get(&e, &res);
            int64_t err = llabs(res.offset_ns - s.offset);
            int ok = res.rounds > 0 && 2 * err <= res.rtt_ns + 1; /* +1: integer midpoint */
            if (method == 0) {
                worst_minrtt_ok &= ok;
                sum_err_minrtt += (double)err;
            } else {
                worst_bounds_ok &= ok;
                crossed += res.bounds_crossed;
            }
        }
    }
    CHECK(worst_minrtt_ok);
    CHECK(worst_bounds_ok);
    CHECK_EQ_INT(crossed, 0); /* constant offset: the bounds always intersect */
    /* the asymmetry biases the estimate (the min-RTT round trip is not symmetric either), but
     * it stays well inside the bound: mean error below a quarter of the fastest RTT (900 ns) */
    CHECK(sum_err_minrtt / 300 < 225);

    /* with a peer clock that drifts 100 ppm the estimate is still within RTT/2 of the offset at
     * the instant it refers to */
    sim s = {42, 5000000000LL, 123456789, 1e-4, 600, 3000, 300, 150};
    mm_clocksync_params p = params(500, 50, 10);
    mm_offset_rules r = mm_offset_rules_min_rtt(&p);
    mm_offset_estimator e;
    mm_offset_init(&e, &r);
    run_until_done(&s, &e);
    mm_offset_result res;
    mm_offset_result_get(&e, &res);
    int64_t truth_at_mid = s.offset + (int64_t)(1e-4 * (double)res.my_ns);
    CHECK(2 * llabs(res.offset_ns - truth_at_mid) <= res.rtt_ns + 2);
    CHECK_EQ_INT(res.peer_ns - res.my_ns, res.offset_ns);
}

/* Feeds round trips with the given RTTs (peer clock = mine + 500); returns the round at which
 * the estimator said stop, or 0 if it never did. */
static int stop_round(const mm_offset_rules *r, const int64_t *rtts, int n, mm_offset_result *res) {
    mm_offset_estimator e;
    mm_offset_init(&e, r);
    int64_t t = 1000000;
    int stopped = 0;
    for (int k = 0; k < n && !stopped; k++) {
        if (mm_offset_add(&e, t, t + rtts[k] / 2 + 500, t + rtts[k])) stopped = k + 1;
        t += rtts[k] + 100;
    }
    if (res) mm_offset_result_get(&e, res);
    return stopped;
}

static void test_n_stop(void) {
    mm_clocksync_params p = params(1000, 5, 1);
    mm_offset_rules r = mm_offset_rules_min_rtt(&p);
    int64_t rtts[64];
    /* improvements at rounds 1, 2 and 6, then nothing beats 80 (a tie does not beat it) */
    const int64_t head[] = {100, 90, 95, 95, 91, 80, 80, 85, 99, 81, 80, 70};
    for (int k = 0; k < 64; k++) rtts[k] = k < 12 ? head[k] : 60;
    mm_offset_result res;
    CHECK_EQ_INT(stop_round(&r, rtts, 64, &res), 6 + 5); /* exactly N = 5 after round 6 */
    CHECK_EQ_INT(res.rtt_ns, 80);
    CHECK_EQ_INT(res.rounds, 11);
    CHECK_EQ_INT(res.offset_ns, 500);

    /* an improvement restarts the count: N = 3 */
    p = params(1000, 3, 1);
    r = mm_offset_rules_min_rtt(&p);
    const int64_t seq[] = {100, 101, 102, 99, 150, 150, 98, 98, 98, 98, 50};
    CHECK_EQ_INT(stop_round(&r, seq, 11, &res), 10);
    CHECK_EQ_INT(res.rtt_ns, 98);

    /* N = 1: the first round that does not improve stops */
    p = params(1000, 1, 1);
    r = mm_offset_rules_min_rtt(&p);
    const int64_t one[] = {100, 90, 80, 80, 10};
    CHECK_EQ_INT(stop_round(&r, one, 5, NULL), 4);
}

static void test_cap(void) {
    int64_t falling[500];
    for (int k = 0; k < 500; k++) falling[k] = 100000 - 10 * k; /* always improving */
    mm_clocksync_params p = params(37, 5, 1);
    mm_offset_rules r = mm_offset_rules_min_rtt(&p);
    mm_offset_result res;
    CHECK_EQ_INT(stop_round(&r, falling, 500, &res), 37);
    CHECK_EQ_INT(res.rounds, 37);
    CHECK_EQ_INT(res.rtt_ns, 100000 - 360);
    int64_t rising[100]; /* after the first, never within 110 % of the best: only the cap stops */
    for (int k = 0; k < 100; k++) rising[k] = 1000 + 120 * k;
    r = mm_offset_rules_bounds(&p, 0);
    CHECK_EQ_INT(stop_round(&r, rising, 100, NULL), 37);
    p = params(1, 5, 1);
    r = mm_offset_rules_min_rtt(&p);
    CHECK_EQ_INT(stop_round(&r, falling, 500, NULL), 1);
    /* and once stopped, further round trips are ignored */
    mm_offset_estimator e;
    mm_offset_init(&e, &r);
    CHECK_EQ_INT(mm_offset_add(&e, 0, 50, 100), 1);
    CHECK_EQ_INT(mm_offset_add(&e, 200, 210, 220), 1);
    mm_offset_result_get(&e, &res);
    CHECK_EQ_INT(res.rounds, 1);
    CHECK_EQ_INT(res.rtt_ns, 100);
}

static void test_skampi_early_stop(void) {
    mm_clocksync_params p = params(1000, 100, 5);
    mm_offset_rules r = mm_offset_rules_bounds(&p, 0);
    /* round 3 is within 110 % of the best so far but min_rounds = 5 holds it back; rounds 4, 5
     * are too slow; round 6 (530 <= 1.1 · 500) fires */
    const int64_t seq[] = {1000, 500, 505, 900, 900, 530, 400, 400};
    mm_offset_result res;
    CHECK_EQ_INT(stop_round(&r, seq, 8, &res), 6);
    CHECK_EQ_INT(res.rtt_ns, 500);
    /* the boundary: exactly 110 % fires, one ns more does not */
    const int64_t edge[] = {1000, 1000, 1000, 1000, 1000, 1000};
    p = params(1000, 100, 2);
    r = mm_offset_rules_bounds(&p, 0);
    CHECK_EQ_INT(stop_round(&r, edge, 6, NULL), 2);
    const int64_t slow[] = {1000, 1101, 1101, 1100};
    CHECK_EQ_INT(stop_round(&r, slow, 4, NULL), 4);

    /* on realistic simulated round trips it fires long before the cap */
    sim s = {7, 1000000, 4242, 0.0, 600, 3000, 300, 150};
    p = params(1000, 100, 10);
    r = mm_offset_rules_bounds(&p, 0);
    mm_offset_estimator e;
    mm_offset_init(&e, &r);
    run_until_done(&s, &e);
    mm_offset_result_get(&e, &res);
    CHECK(res.rounds >= 10);
    CHECK(res.rounds < 1000);
}

/* docs/ALGORITHMS.md, "Building blocks": "a per-pair RTT cache whose condition was inverted (first use read RTT = 0,
 * biasing the offset by RTT/2); an early stop that could never fire". */
static void test_known_bugs_absent(void) {
    /* Symmetric delays: every estimator must return the offset exactly, on first use of the
     * pair (no cache) — a cached RTT of 0 would shift it by RTT/2. */
    for (int method = 0; method < 2; method++) {
        mm_clocksync_params p = params(50, 10, 5);
        mm_offset_rules r = method ? mm_offset_rules_bounds(&p, 0) : mm_offset_rules_min_rtt(&p);
        CHECK_EQ_INT(r.prior_best_rtt_ns, 0);
        mm_offset_estimator e;
        mm_offset_init(&e, &r);
        int64_t t = 777;
        for (int k = 0; k < 50; k++) {
            int64_t one_way = 400 + 37 * (k % 7);
            if (mm_offset_add(&e, t, t + one_way - 31337, t + 2 * one_way)) break;
            t += 5000;
        }
        mm_offset_result res;
        mm_offset_result_get(&e, &res);
        CHECK_EQ_INT(res.offset_ns, -31337);
        CHECK_EQ_INT(res.rtt_ns, 800);
    }
    /* an unknown (0) or nonsense (negative) prior is not an RTT: without it the first rounds
     * cannot stop early; with a real prior the early stop uses it */
    mm_clocksync_params p = params(1000, 100, 1);
    mm_offset_rules r0 = mm_offset_rules_bounds(&p, 0), rneg = mm_offset_rules_bounds(&p, -5),
                    rknown = mm_offset_rules_bounds(&p, 1000);
    CHECK_EQ_INT(rneg.prior_best_rtt_ns, 0);
    const int64_t seq[] = {1050, 1060, 1070, 2000, 1100, 1000};
    CHECK_EQ_INT(stop_round(&r0, seq, 6, NULL), 2);     /* 1060 <= 1.1·1050 */
    CHECK_EQ_INT(stop_round(&rneg, seq, 6, NULL), 2);
    CHECK_EQ_INT(stop_round(&rknown, seq, 6, NULL), 1); /* 1050 <= 1.1·1000 already */
    /* the early stop can fire, for every min_rounds, on a steady connection */
    for (int m = 1; m <= 20; m++) {
        mm_clocksync_params q = params(1000, 100, m);
        mm_offset_rules r = mm_offset_rules_bounds(&q, 0);
        int64_t steady[40];
        for (int k = 0; k < 40; k++) steady[k] = 1000 + (k % 3) * 20;
        CHECK_EQ_INT(stop_round(&r, steady, 40, NULL), m < 2 ? 2 : m);
    }
}

static void test_bounds_crossed(void) {
    /* a peer clock that jumps by 10 µs between round trips: the bounds cannot all hold */
    mm_clocksync_params p = params(4, 100, 100);
    mm_offset_rules r = mm_offset_rules_bounds(&p, 0);
    mm_offset_estimator e;
    mm_offset_init(&e, &r);
    mm_offset_add(&e, 0, 1000 + 50, 100);      /* offset 1000, RTT 100: bounds [950, 1050] */
    mm_offset_add(&e, 1000, 11000 + 1060, 1120); /* offset 11000, RTT 120 */
    mm_offset_add(&e, 2000, 11000 + 2070, 2140);
    mm_offset_add(&e, 3000, 11000 + 3080, 3160);
    mm_offset_result res;
    mm_offset_result_get(&e, &res);
    CHECK_EQ_INT(res.bounds_crossed, 1);
    CHECK_EQ_INT(res.offset_ns, 1000); /* the min-RTT candidate */
    CHECK_EQ_INT(res.rtt_ns, 100);
    /* a clock running backwards inside a round trip is no information */
    mm_offset_init(&e, &r);
    mm_offset_add(&e, 500, 0, 100);
    mm_offset_result_get(&e, &res);
    CHECK_EQ_INT(res.rounds, 0);
}

static void test_registry_and_params(void) {
    char names[256] = "";
    for (int i = 0; mm_clocksync_registry[i]; i++) {
        if (i) strcat(names, ", ");
        strcat(names, mm_clocksync_registry[i]->name);
        CHECK(mm_clocksync_find(mm_clocksync_registry[i]->name) == mm_clocksync_registry[i]);
    }
    CHECK_STR(mm_clocksync_names(), names);
    CHECK(mm_clocksync_find("nope") == NULL);
    CHECK(mm_clocksync_find(NULL) == NULL);

    mm_clocksync_params zero = {0, 0, 0, 0, 0.0, 0, 0.0}, out;
    mm_clocksync_params_resolve("hca3", &zero, &out);
    CHECK_EQ_INT(out.nfit, MM_CS_DEFAULT_NFIT);
    CHECK_EQ_INT(out.pingpong_cap, MM_CS_DEFAULT_CAP);
    CHECK_EQ_INT(out.n_nonimproving, MM_CS_DEFAULT_N);
    CHECK_EQ_INT(out.min_rounds, MM_CS_DEFAULT_MIN_ROUNDS);
    CHECK_NEAR(out.fit_span_s, MM_CS_DEFAULT_FIT_SPAN_S, 0);
    mm_clocksync_params_resolve("hca3o", NULL, &out);
    CHECK_EQ_INT(out.pingpong_cap, MM_CS_DEFAULT_CAP);
    mm_clocksync_params given = {3, 7, 2, 4, 0.5, 0, 0.0};
    mm_clocksync_params_resolve("hca3o", &given, &out);
    CHECK_EQ_INT(out.nfit, 3);
    CHECK_EQ_INT(out.pingpong_cap, 7);
    CHECK_NEAR(out.fit_span_s, 0.5, 0);
    char err[256];
    CHECK_EQ_INT(mm_clocksync_params_check(&zero, err, sizeof err), 0);
    mm_clocksync_params bad = {-1, 0, 0, 0, 0.0, 0, 0.0};
    CHECK_EQ_INT(mm_clocksync_params_check(&bad, err, sizeof err), MM_E_INPUT);
    CHECK(strstr(err, "negative") != NULL);
    bad.nfit = 0;
    bad.fit_span_s = NAN;
    CHECK_EQ_INT(mm_clocksync_params_check(&bad, err, sizeof err), MM_E_INPUT);
}

int main(void) {
    test_accuracy();
    test_n_stop();
    test_cap();
    test_skampi_early_stop();
    test_known_bugs_absent();
    test_bounds_crossed();
    test_registry_and_params();
    return mm_check_summary("offset");
}
