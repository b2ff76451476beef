/* SPDX-License-Identifier: BSD-3-Clause */
/* test_procstat.c — the machine's busy CPU time parsed from /proc/stat text, and the share of
 * it other processes used (common/procstat.c), the figures of load.other_cpu_s and of
 * tests[].other_cpu (docs/FORMAT.md). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mm_check.h"
#include "mm_error.h"
#include "mm_procstat.h"

static void test_busy_ticks(void) {
    uint64_t busy = 0;
    /* a kernel's text: user nice system idle iowait irq softirq steal guest guest_nice; busy
     * leaves out idle (4th) and iowait (5th), and guest (already inside user) */
    const char *text = "cpu  100 20 30 5000 7 1 2 3 40 50\n"
                       "cpu0 50 10 15 2500 3 1 1 2 20 25\n"
                       "intr 12345 0 0\n";
    CHECK_EQ_INT(mm_procstat_busy_ticks(text, &busy), 0);
    CHECK_EQ_INT(busy, 100 + 20 + 30 + 1 + 2 + 3);
    /* an old kernel's four fields */
    CHECK_EQ_INT(mm_procstat_busy_ticks("cpu 1 2 3 4\n", &busy), 0);
    CHECK_EQ_INT(busy, 6);
    /* a tab after "cpu" */
    CHECK_EQ_INT(mm_procstat_busy_ticks("cpu\t8 0 2 9\n", &busy), 0);
    CHECK_EQ_INT(busy, 10);
    /* counters past 2^32 (a machine up for months) */
    CHECK_EQ_INT(mm_procstat_busy_ticks("cpu 5000000000 0 0 1\n", &busy), 0);
    CHECK(busy == 5000000000ULL);
}

static void test_busy_ticks_refused(void) {
    uint64_t busy = 77;
    /* a CPU's line is not the machine's: "cpu0 5 ..." must not read as cpu = 0, 5, ... */
    CHECK_EQ_INT(mm_procstat_busy_ticks("cpu0 5 6 7 8\n", &busy), MM_E_INPUT);
    CHECK_EQ_INT(mm_procstat_busy_ticks("cpu 1 2 3\n", &busy), MM_E_INPUT); /* too few fields */
    CHECK_EQ_INT(mm_procstat_busy_ticks("", &busy), MM_E_INPUT);
    CHECK_EQ_INT(mm_procstat_busy_ticks("intr 1 2 3 4\n", &busy), MM_E_INPUT);
    CHECK_EQ_INT(busy, 77); /* left as it was */
}

static void test_busy_s_from_a_file(void) {
    char path[] = "/tmp/mm_test_procstat_XXXXXX";
    FILE *f = NULL;
    int fd = mkstemp(path);
    if (fd >= 0) f = fdopen(fd, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("cpu  300 0 100 900 0 0 0 0 0 0\ncpu0 300 0 100 900 0 0 0 0 0 0\n", f);
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    CHECK_NEAR(mm_procstat_busy_s(path), 400.0 / (double)hz, 1e-9);
    remove(path);
    CHECK(isnan(mm_procstat_busy_s(path))); /* gone: unknown, not 0 */
}

static void test_share(void) {
    /* 2 CPUs for 1 s: 1.5 s busy, 0.5 s of it this launch's ranks -> half the machine */
    CHECK_NEAR(mm_other_cpu_share(1.5, 0.5, 1.0, 2), 0.5, 1e-12);
    /* a block shorter than a tick reads 0 or a whole tick: below 0 and above 1 are clamped */
    CHECK_NEAR(mm_other_cpu_share(0.0, 0.004, 0.001, 2), 0.0, 0);
    CHECK_NEAR(mm_other_cpu_share(0.01, 0.0, 0.001, 2), 1.0, 0);
    CHECK(isnan(mm_other_cpu_share(NAN, 0.5, 1.0, 2)));
    CHECK(isnan(mm_other_cpu_share(1.0, 0.5, 0.0, 2)));
    CHECK(isnan(mm_other_cpu_share(1.0, 0.5, 1.0, 0)));
}

int main(void) {
    test_busy_ticks();
    test_busy_ticks_refused();
    test_busy_s_from_a_file();
    test_share();
    return mm_check_summary("test_procstat");
}
