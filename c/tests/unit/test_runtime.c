/* SPDX-License-Identifier: BSD-3-Clause */
/* test_runtime.c — the run time of one repetition (mm_runtime.h), the one C definition that the
 * stopping rule's reductions and the reduced raw rows share. */
#include <stdint.h>

#include "mm_check.h"
#include "mm_runtime.h"

int main(void) {
    /* with a global clock: latest global end minus earliest global start, whatever the locals */
    CHECK(mm_rep_runtime_ns(1, 70, 1000, 1250) == 250);
    /* without: the longest local duration */
    CHECK(mm_rep_runtime_ns(0, 70, 1000, 1250) == 70);
    CHECK(mm_rep_duration_ns(100, 175) == 75);
    /* virtual clocks may start anywhere: no signed overflow across the whole range */
    CHECK(mm_rep_duration_ns(INT64_MIN + 5, INT64_MIN + 9) == 4);
    CHECK(mm_rep_duration_ns(INT64_MAX - 9, INT64_MAX) == 9);
    /* a reduced row's end: earliest start + longest duration, so end - start is that duration */
    int64_t end = mm_rep_reduced_end_ns(-40, 90);
    CHECK(end == 50 && mm_rep_duration_ns(-40, end) == 90);
    return mm_check_summary("test_runtime");
}
