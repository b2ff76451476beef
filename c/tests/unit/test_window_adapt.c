/* test_window_adapt.c — how the window process sync adapts its window between batches: grows
 * while many repetitions miss it, comes back after clean batches, and has a ceiling. */
#include "mm_check.h"
#include "mm_procsync.h"

static void test_grows_when_a_quarter_misses(void) {
    CHECK_EQ_INT(mm_window_adapt_ns(10000, 10000, 9, 32), 20000);  /* 9 > 32/4 */
    CHECK_EQ_INT(mm_window_adapt_ns(10000, 10000, 8, 32), 10000);  /* 8 is not above a quarter */
    CHECK_EQ_INT(mm_window_adapt_ns(40000, 10000, 3, 32), 40000);  /* a few misses: kept */
}

static void test_comes_back_after_a_clean_batch(void) {
    CHECK_EQ_INT(mm_window_adapt_ns(80000, 10000, 0, 32), 40000);
    CHECK_EQ_INT(mm_window_adapt_ns(10000, 10000, 0, 32), 10000);  /* never below the pilot's */
    CHECK_EQ_INT(mm_window_adapt_ns(15000, 10000, 0, 32), 15000);  /* half would be below it */
}

static void test_has_a_ceiling(void) {
    int64_t window = 9300, pilot = 9300;
    for (int batch = 0; batch < 40; batch++) window = mm_window_adapt_ns(window, pilot, 32, 32);
    CHECK_EQ_INT(window, 1024 * pilot);
    /* and load that goes away brings it back to the pilot's in as many clean batches */
    for (int batch = 0; batch < 10; batch++) window = mm_window_adapt_ns(window, pilot, 0, 32);
    CHECK_EQ_INT(window, pilot);
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
    test_comes_back_after_a_clean_batch();
    test_has_a_ceiling();
    return mm_check_summary("test_window_adapt");
}
