/* SPDX-License-Identifier: BSD-3-Clause */
/* test_timer.c — the timer registry, every timer available here (without MPI_Init, so `wtime`
 * must refuse), the virtual timer's exact mapping, and the tsc calibration. */
#include <stdlib.h>
#include <time.h>

#include "../../src/timer/timer_internal.h"
#include "mm_check.h"
#include "mm_error.h"
#include "mm_timer.h"

#define MONOTONE_READS 200000

static int contains(const char *haystack, const char *needle) {
    return haystack && needle && strstr(haystack, needle) != NULL;
}

static void test_registry(void) {
    size_t n = 0;
    for (; mm_timer_registry[n]; n++) {
        const mm_timer_vtable *vt = mm_timer_registry[n];
        CHECK(mm_timer_find(vt->name) == vt);
        CHECK(contains(mm_timer_names(), vt->name));
        CHECK(vt->description && vt->description[0]);
        CHECK(vt->available && vt->init && vt->now_ns && vt->finalize);
    }
    CHECK_EQ_INT(n, 6);
    /* names() lists exactly the registry: n names need n-1 separators */
    size_t commas = 0;
    for (const char *p = mm_timer_names(); *p; p++) commas += *p == ',';
    CHECK_EQ_INT(commas + 1, n);
    CHECK(mm_timer_find("bogus") == NULL);
    CHECK(mm_timer_find(NULL) == NULL);
    CHECK(mm_timer_find("Monotonic") == NULL); /* names are exact */
}

static void test_unknown_name(void) {
    mm_timer t;
    char why[512] = "";
    CHECK_EQ_INT(mm_timer_open(&t, "bogus", NULL, why, sizeof why), -1);
    CHECK(contains(why, "unknown timer 'bogus'"));
    for (size_t i = 0; mm_timer_registry[i]; i++) CHECK(contains(why, mm_timer_registry[i]->name));
    CHECK(t.vt == NULL);
}

static void test_wtime_needs_mpi(void) {
    mm_timer t;
    char why[512] = "";
    CHECK_EQ_INT(mm_timer_open(&t, "wtime", NULL, why, sizeof why), -1);
    CHECK(contains(why, "MPI_Init"));
}

/* Every timer that opens here never goes backwards. */
static void test_monotone(const char *name, const mm_virtual_params *vp) {
    mm_timer t;
    char why[512] = "";
    if (mm_timer_open(&t, name, vp, why, sizeof why) != 0) {
        printf("  %s: not available here: %s\n", name, why);
        CHECK(why[0] != '\0'); /* a refusal always says why */
        return;
    }
    CHECK(t.resolution_ns > 0);
    CHECK(t.overhead_ns > 0);
    long backwards = 0;
    int64_t prev = mm_timer_now(&t);
    for (long i = 0; i < MONOTONE_READS; i++) {
        int64_t cur = mm_timer_now(&t);
        backwards += cur < prev;
        prev = cur;
    }
    CHECK_EQ_INT(backwards, 0);
    /* wait_until returns only once the deadline is reached */
    int64_t deadline = mm_timer_now(&t) + 200000;
    mm_timer_wait_until(&t, deadline);
    CHECK(mm_timer_now(&t) >= deadline);
    printf("  %-14s resolution %.1f ns, overhead %.1f ns\n", name, t.resolution_ns,
           t.overhead_ns);
    mm_timer_close(&t);
    CHECK(t.vt == NULL && t.state == NULL);
}

static void test_virtual_mapping(void) {
    /* hand-computed: 1e9 ns * 100 ppm = 100000 ns */
    CHECK_EQ_INT(mm__virtual_local_ns(1000000000, 5, 100.0), 1000100005);
    CHECK_EQ_INT(mm__virtual_local_ns(1000000000, -7, -37.5), 1000000000 - 7 - 37500);
    CHECK_EQ_INT(mm__virtual_local_ns(123, 0, 0.0), 123);
    /* rounding half away from zero: 3e6 * 0.5e-6 = 1.5 -> 2, -1.5 -> -2; 0.4 -> 0 */
    CHECK_EQ_INT(mm__virtual_local_ns(3000000, 0, 0.5), 3000002);
    CHECK_EQ_INT(mm__virtual_local_ns(-3000000, 0, 0.5), -3000002);
    CHECK_EQ_INT(mm__virtual_local_ns(800000, 0, 0.5), 800000);
    /* ten days of uptime with 100 ppm: 8.64e14 ns * 1e-4 = 8.64e10 ns, exact */
    CHECK_EQ_INT(mm__virtual_local_ns(864000000000000, 1000000000, 100.0),
                 864000000000000 + 1000000000 + 86400000000);
    /* deterministic and non-decreasing under negative skew */
    int64_t prev = mm__virtual_local_ns(5000000000, 0, -99.9);
    long backwards = 0, differ = 0;
    for (int64_t b = 5000000001; b < 5000100000; b++) {
        int64_t v = mm__virtual_local_ns(b, 0, -99.9);
        backwards += v < prev;
        differ += v != mm__virtual_local_ns(b, 0, -99.9);
        prev = v;
    }
    CHECK_EQ_INT(backwards, 0);
    CHECK_EQ_INT(differ, 0);
}

static void test_virtual_timer(void) {
    mm_virtual_params vp = {.base = "monotonic", .offset_ns = 123456789, .skew_ppm = 50.0};
    mm_timer v, base;
    char why[512] = "";
    CHECK_EQ_INT(mm_timer_open(&v, "virtual", &vp, why, sizeof why), 0);
    CHECK_EQ_INT(mm_timer_open(&base, "monotonic", NULL, why, sizeof why), 0);
    CHECK_EQ_INT(v.virtual_offset_ns, 123456789);
    CHECK(v.virtual_skew_ppm == 50.0);
    long outside = 0, truth_outside = 0;
    for (int i = 0; i < 10000; i++) {
        /* both read CLOCK_MONOTONIC: the virtual reading must lie between the mapped base
         * readings taken just before and just after it — exactly, no tolerance */
        int64_t b0 = mm_timer_now(&base);
        int64_t local = mm_timer_now(&v);
        int64_t b1 = mm_timer_now(&base);
        outside += local < mm__virtual_local_ns(b0, vp.offset_ns, vp.skew_ppm) ||
                   local > mm__virtual_local_ns(b1, vp.offset_ns, vp.skew_ppm);
        int64_t truth = mm_timer_truth_ns(&v);
        int64_t b2 = mm_timer_now(&base);
        truth_outside += truth < b1 || truth > b2;
    }
    CHECK_EQ_INT(outside, 0);
    CHECK_EQ_INT(truth_outside, 0);
    /* for a non-virtual timer the truth is its own reading */
    int64_t m0 = mm_timer_now(&base), tr = mm_timer_truth_ns(&base), m1 = mm_timer_now(&base);
    CHECK(m0 <= tr && tr <= m1);
    mm_timer_close(&base);
    mm_timer_close(&v);
}

/* The virtual timer refuses vp with a reason containing needle. */
static void expect_virtual_refused(const mm_virtual_params *vp, const char *needle) {
    mm_timer t;
    char why[512] = "";
    CHECK_EQ_INT(mm_timer_open(&t, "virtual", vp, why, sizeof why), MM_E_FAILED);
    if (!contains(why, needle)) fprintf(stderr, "reason '%s' lacks '%s'\n", why, needle);
    CHECK(contains(why, needle));
}

static void test_virtual_refusals(void) {
    mm_virtual_params self = {.base = "virtual", .offset_ns = 0, .skew_ppm = 0.0};
    expect_virtual_refused(&self, "cannot wrap itself");
    mm_virtual_params empty = {.base = "", .offset_ns = 0, .skew_ppm = 0.0};
    expect_virtual_refused(&empty, "needs a base timer");
    expect_virtual_refused(NULL, "needs a base timer");
    mm_virtual_params bogus = {.base = "bogus", .offset_ns = 0, .skew_ppm = 0.0};
    expect_virtual_refused(&bogus, "unknown timer 'bogus'");
    mm_virtual_params wild = {.base = "monotonic", .offset_ns = 0, .skew_ppm = -2e6};
    expect_virtual_refused(&wild, "out of range");
    mm_virtual_params on_wtime = {.base = "wtime", .offset_ns = 0, .skew_ppm = 0.0};
    expect_virtual_refused(&on_wtime, "MPI_Init");
}

/* tsc: either refused with a reason, or its rate agrees with CLOCK_MONOTONIC_RAW within 1 %
 * over 100 ms (the brief's accuracy bound; the calibration is normally good to a few ppm). */
static void test_tsc(void) {
    mm_timer t;
    char why[512] = "";
    if (mm_timer_open(&t, "tsc", NULL, why, sizeof why) != 0) {
        printf("  tsc refused: %s\n", why);
        CHECK(contains(why, "tsc"));
        CHECK(t.vt == NULL);
        return;
    }
    CHECK(t.tsc_hz > 1e7);
    int64_t raw0 = mm__clock_ns(CLOCK_MONOTONIC_RAW), tsc0 = mm_timer_now(&t);
    /* ns are on CLOCK_MONOTONIC_RAW's time line (same origin), so the two agree closely */
    CHECK(llabs(tsc0 - raw0) < 1000000);
    struct timespec pause = {0, 100000000};
    nanosleep(&pause, NULL);
    /* spin 1 ms first: the first reads after a wake-up are slow and would skew the ratio */
    int64_t spin_end = mm__clock_ns(CLOCK_MONOTONIC_RAW) + 1000000;
    while (mm__clock_ns(CLOCK_MONOTONIC_RAW) < spin_end) {
    }
    int64_t raw1 = mm__clock_ns(CLOCK_MONOTONIC_RAW), tsc1 = mm_timer_now(&t);
    double ratio = (double)(tsc1 - tsc0) / (double)(raw1 - raw0);
    printf("  tsc %.6f GHz, rate vs monotonic-raw over 100 ms: %.9f\n", t.tsc_hz / 1e9, ratio);
    CHECK_NEAR(ratio, 1.0, 0.01);
    mm_timer_close(&t);
}

/* Stand-in clocks for the probe: `fake_clock_ns` advances by a read's cost at every read. */
static int64_t fake_clock_ns;
static int64_t fake_fine_now(const mm_timer *t) { /* a 1 ns clock whose reads cost 16 or 17 ns */
    (void)t;
    fake_clock_ns += 16 + (fake_clock_ns / 16) % 2;
    return fake_clock_ns;
}
static int64_t fake_coarse_now(const mm_timer *t) { /* a 100 ns clock whose reads cost 37 ns */
    (void)t;
    fake_clock_ns += 37;
    return fake_clock_ns - fake_clock_ns % 100;
}

/* The resolution is the grid the readings lie on, not a read's cost: a clock finer than its
 * read (CLOCK_MONOTONIC here: 1 ns, reads of 15-17 ns) records 1 ns; a coarse one its step. */
static void test_resolution_is_the_grid_not_the_read_cost(void) {
    mm_timer_vtable fine = {.name = "fake-fine", .now_ns = fake_fine_now};
    mm_timer_vtable coarse = {.name = "fake-coarse", .now_ns = fake_coarse_now};
    mm_timer t = {.vt = &fine};
    fake_clock_ns = 0;
    mm_timer_probe(&t);
    CHECK(t.resolution_ns == 1.0);
    CHECK(t.overhead_ns >= 16.0 && t.overhead_ns <= 17.0);
    t = (mm_timer){.vt = &coarse};
    mm_timer_probe(&t);
    CHECK(t.resolution_ns == 100.0);
}

int main(void) {
    test_registry();
    test_unknown_name();
    test_wtime_needs_mpi();
    const char *names[] = {"monotonic", "monotonic-raw", "realtime", "tsc"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) test_monotone(names[i], NULL);
    mm_virtual_params vp = {.base = "monotonic-raw", .offset_ns = -987654321, .skew_ppm = -80.0};
    test_monotone("virtual", &vp);
    test_virtual_mapping();
    test_virtual_timer();
    test_virtual_refusals();
    test_tsc();
    test_resolution_is_the_grid_not_the_read_cost();
    return mm_check_summary("test_timer");
}
