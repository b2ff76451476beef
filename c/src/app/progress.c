/* SPDX-License-Identifier: BSD-3-Clause */
/* progress.c — the line per finished test that mpimeter-bench prints to stderr (--progress, or
 * when stderr is a terminal), as OSU and IMB print each size as it is measured: the library
 * hands rank 0 the test's facts (mm_launch_result.on_test); only this layer prints. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "app_output.h"
#include "mm_ops.h"

/* 3 significant digits in the unit that keeps them readable: 812 ns, 12.3 us, 4.51 ms, 2.05 s */
static void mm__duration(double ns, char *out, size_t len) {
    static const struct { double scale; const char *unit; } units[] = {
        {1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (fabs(ns) >= units[i].scale || units[i].scale == 1) {
            snprintf(out, len, "%.3g %s", ns / units[i].scale, units[i].unit);
            return;
        }
    }
}

void mm_progress_format(const mm_test_facts *f, char *out, size_t len) {
    const mm_test *t = f->test;
    const char *unit = t->op && (t->op->flags & MM_OP_SIZE_IS_DURATION) ? "ns" : "B";
    int head = snprintf(out, len, "[%d/%d] %s %" PRId64 " %s: ", f->finished, f->planned,
                        t->op ? t->op->name : "?", t->size, unit);
    if (head < 0 || (size_t)head >= len) return;
    out += head;
    len -= (size_t)head;
    if (t->status != MM_TEST_COMPLETE) {
        snprintf(out, len, "failed (%s: %s)", t->error_code, t->error_message);
        return;
    }
    char median[32] = "none";
    if (isfinite(f->median_ns)) mm__duration(f->median_ns, median, sizeof median);
    snprintf(out, len, "%ld of %ld valid, median %s (%s, %s)", f->valid, t->nrep, median,
             f->procsync ? f->procsync : "?", f->run_time ? f->run_time : "?");
}

void mm_progress_print(const mm_test_facts *facts, void *ctx) {
    (void)ctx;
    char line[640];
    mm_progress_format(facts, line, sizeof line);
    fprintf(stderr, "mpimeter-bench: %s\n", line);
    fflush(stderr);
}
