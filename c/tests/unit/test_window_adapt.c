/* SPDX-License-Identifier: BSD-3-Clause */
/* test_window_adapt.c — how the window process sync adapts its window between batches: grows
 * while many repetitions miss it, comes back after clean batches, and has a ceiling
 * (--window-growth-max); and the switch rule that hands a test to a method that holds
 * (procsync/switch_rule.c). */
#include <string.h>

#include "mm_check.h"
#include "mm_procsync.h"

static void test_grows_when_a_quarter_misses(void) {
    CHECK_EQ_INT(mm_window_adapt_ns(10000, 10000, 9, 32, 1024), 20000);  /* 9 > 32/4 */
    CHECK_EQ_INT(mm_window_adapt_ns(10000, 10000, 8, 32, 1024), 10000);  /* 8 is not above a quarter */
    CHECK_EQ_INT(mm_window_adapt_ns(40000, 10000, 3, 32, 1024), 40000);  /* a few misses: kept */
}

static void test_comes_back_after_a_clean_batch(void) {
    CHECK_EQ_INT(mm_window_adapt_ns(80000, 10000, 0, 32, 1024), 40000);
    CHECK_EQ_INT(mm_window_adapt_ns(10000, 10000, 0, 32, 1024), 10000);  /* never below the pilot's */
    CHECK_EQ_INT(mm_window_adapt_ns(15000, 10000, 0, 32, 1024), 15000);  /* half would be below it */
}

static void test_has_a_ceiling(void) {
    int64_t window = 9300, pilot = 9300;
    for (int batch = 0; batch < 40; batch++) window = mm_window_adapt_ns(window, pilot, 32, 32, 1024);
    CHECK_EQ_INT(window, 1024 * pilot);
    /* and load that goes away brings it back to the pilot's in as many clean batches */
    for (int batch = 0; batch < 10; batch++) window = mm_window_adapt_ns(window, pilot, 0, 32, 1024);
    CHECK_EQ_INT(window, pilot);
}

static void test_the_ceiling_is_the_option(void) {
    int64_t window = 10000, pilot = 10000;
    for (int batch = 0; batch < 20; batch++) window = mm_window_adapt_ns(window, pilot, 32, 32, 64);
    CHECK_EQ_INT(window, 64 * pilot);
    /* a cap that is not a power of two: doubling stops below it, never above */
    window = pilot;
    for (int batch = 0; batch < 20; batch++) window = mm_window_adapt_ns(window, pilot, 32, 32, 100);
    CHECK_EQ_INT(window, 64 * pilot);
    CHECK_EQ_INT(mm_window_adapt_ns(pilot, pilot, 32, 32, 1), pilot); /* 1: never grows */
}

/* The automatic window holds the idle time before each call constant: a pilot's noise moves the
 * window, never the wait (0.3 us and 0.5 us calls both wait ~10 us, not 0.6 us and 1 us apart). */
static void test_the_auto_window_is_the_pilot_plus_a_fixed_idle_time(void) {
    CHECK_EQ_INT(mm_window_auto_ns(0), 10000);            /* never below 10 us */
    CHECK_EQ_INT(mm_window_auto_ns(300), 10300);
    CHECK_EQ_INT(mm_window_auto_ns(500), 10500);
    CHECK_EQ_INT(mm_window_auto_ns(16000), 26000);        /* idle 10 us up to a 20 us call */
    CHECK_EQ_INT(mm_window_auto_ns(20000), 30000);
    CHECK_EQ_INT(mm_window_auto_ns(100000), 150000);      /* beyond: half the call */
}

static int mm__is(const char *got, const char *want) {
    return got == NULL ? want == NULL : want != NULL && strcmp(got, want) == 0;
}

static void test_switch_rule(void) {
    /* above the threshold at the cap: switch at once */
    CHECK(mm__is(mm_switch_why(17, 32, 0.5, 1, 0), "late-at-cap"));
    /* exactly at the threshold is not above it */
    CHECK(mm__is(mm_switch_why(16, 32, 0.5, 1, 0), NULL));
    /* below the cap, the first late batch doubles the window; a second one in a row switches */
    CHECK(mm__is(mm_switch_why(30, 32, 0.5, 0, 0), NULL));
    CHECK(mm__is(mm_switch_why(30, 32, 0.5, 0, 1), "late-twice"));
    /* a clean batch after a late one: go on */
    CHECK(mm__is(mm_switch_why(2, 32, 0.5, 0, 1), NULL));
    /* 1 never switches, even with every repetition late; nothing seen decides nothing */
    CHECK(mm__is(mm_switch_why(32, 32, 1.0, 1, 1), NULL));
    CHECK(mm__is(mm_switch_why(0, 0, 0.5, 1, 1), NULL));
    /* a low threshold switches on a few late starts */
    CHECK(mm__is(mm_switch_why(2, 32, 0.05, 1, 0), "late-at-cap"));
}

static void test_short_tests_get_short_batches(void) {
    CHECK_EQ_INT(mm_window_batch_length(10, 300), 32); /* the default test: batches of 32 */
    CHECK_EQ_INT(mm_window_batch_length(10, 30), 10);  /* 40 repetitions: four batches */
    CHECK_EQ_INT(mm_window_batch_length(0, 12), 8);    /* never below 8 */
    CHECK_EQ_INT(mm_window_batch_length(0, 100), 25);
}

int main(void) {
    test_short_tests_get_short_batches();
    test_grows_when_a_quarter_misses();
    test_the_auto_window_is_the_pilot_plus_a_fixed_idle_time();
    test_comes_back_after_a_clean_batch();
    test_has_a_ceiling();
    test_the_ceiling_is_the_option();
    test_switch_rule();
    return mm_check_summary("test_window_adapt");
}
