/* SPDX-License-Identifier: BSD-3-Clause */
/* test_probe_copy.c — the pure parts of the copy-bandwidth probe (probe_copy.c): the ladder of
 * buffer sizes, the copies per batch, and the least/median/largest over ranks. */
#include "mm_check.h"
#include "mm_output.h"

static void test_ladder(void) {
    int64_t sizes[MM_COPY_MAX_SIZES];
    CHECK_EQ_INT(mm_copy_ladder(0, sizes, MM_COPY_MAX_SIZES), 0); /* 0: no probe */
    CHECK_EQ_INT(mm_copy_ladder(65536, sizes, MM_COPY_MAX_SIZES), 3);
    CHECK(sizes[0] == 4096 && sizes[1] == 16384 && sizes[2] == 65536);
    CHECK_EQ_INT(mm_copy_ladder(100000, sizes, MM_COPY_MAX_SIZES), 4); /* ends with the size given */
    CHECK(sizes[2] == 65536 && sizes[3] == 100000);
    CHECK_EQ_INT(mm_copy_ladder(1000, sizes, MM_COPY_MAX_SIZES), 1); /* below 4 KiB: that size alone */
    CHECK(sizes[0] == 1000);
    CHECK_EQ_INT(mm_copy_ladder(1073741824, sizes, MM_COPY_MAX_SIZES), 10); /* 4 KiB x4^k .. 1 GiB */
    CHECK(sizes[9] == 1073741824);
    CHECK_EQ_INT(mm_copy_ladder(1073741824, sizes, 3), 3); /* bounded, still ending with the largest */
    CHECK(sizes[2] == 1073741824);
}

static void test_copies(void) {
    CHECK_EQ_INT(mm_copy_copies(4096), 256);
    CHECK_EQ_INT(mm_copy_copies(1 << 20), 1);
    CHECK_EQ_INT(mm_copy_copies(3 << 20), 1);
    CHECK_EQ_INT(mm_copy_copies(1000), 1049); /* rounded up: at least 1 MiB per batch */
}

static void test_summary(void) {
    double least, median, largest;
    double odd[] = {3e9, -1, 1e9, 2e9};
    CHECK_EQ_INT(mm_copy_summary(odd, 4, &least, &median, &largest), 3); /* the failed rank left out */
    CHECK(least == 1e9 && median == 2e9 && largest == 3e9);
    double even[] = {4e9, 1e9};
    CHECK_EQ_INT(mm_copy_summary(even, 2, &least, &median, &largest), 2);
    CHECK(median == 2.5e9);
    double none[] = {-1, -1};
    CHECK_EQ_INT(mm_copy_summary(none, 2, &least, &median, &largest), 0);
    CHECK(least == -1 && median == -1 && largest == -1);
}

int main(void) {
    test_ladder();
    test_copies();
    test_summary();
    return mm_check_summary("test_probe_copy");
}
