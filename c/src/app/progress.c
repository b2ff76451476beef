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

void mm_test_label(const mm_config *cfg, const mm_test *t, char *out, size_t len) {
    out[0] = '\0';
    if (!cfg || len == 0) return;
    size_t at = 0;
    const struct { int applies; const char *format; int value; } parts[] = {
        {t->root >= 0 && (cfg->plan.roots.all || cfg->plan.roots.n > 1), "root %d", t->root},
        {cfg->plan.comm_sizes.n > 1, t->nprocs == 1 ? "%d rank" : "%d ranks", t->nprocs},
        {t->workpieces > 0 && cfg->plan.workpieces.n > 1, t->workpieces == 1 ? "%d workpiece" : "%d workpieces",
         t->workpieces},
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!parts[i].applies || at >= len) continue;
        if (at > 0) at += (size_t)snprintf(out + at, len - at, ", ");
        if (at < len) at += (size_t)snprintf(out + at, len - at, parts[i].format, parts[i].value);
    }
}

void mm_progress_format(const mm_test_facts *f, const mm_config *cfg, char *out, size_t len) {
    const mm_test *t = f->test;
    const char *unit = t->op && (t->op->flags & MM_OP_SIZE_IS_DURATION) ? "ns" : "B";
    char label[96];
    mm_test_label(cfg, t, label, sizeof label);
    int head = snprintf(out, len, "[%d/%d] %s %" PRId64 " %s%s%s%s: ", f->finished, f->planned,
                        t->op ? t->op->name : "?", t->size, unit, label[0] ? " (" : "", label,
                        label[0] ? ")" : "");
    if (head < 0 || (size_t)head >= len) return;
    out += head;
    len -= (size_t)head;
    if (t->status != MM_TEST_COMPLETE && t->status != MM_TEST_INCOMPLETE) {
        snprintf(out, len, "failed (%s: %s)", t->error_code, t->error_message);
        return;
    }
    char median[96] = "none";
    if (isfinite(f->median_ns)) mm__duration(f->median_ns, median, sizeof median);
    else if (f->valid > 0) /* valid repetitions whose run times stayed on their ranks */
        snprintf(median, sizeof median, "not collected (a --nprocs test; mpimeter analyze gives it)");
    /* a nonblocking collective's median is its blocking phase's (the phase judged, nbc_test.c),
     * not that of its raw.csv rows, which hold the overlap phase with its computation
     * (docs/FORMAT.md): said so, it is the blocking time `mpimeter analyze` shows beside them */
    int head2 = snprintf(out, len, "%ld of %ld valid, median %s (%s, %s%s)", f->valid, t->nrep, median,
                         f->procsync ? f->procsync : "?", f->run_time ? f->run_time : "?",
                         t->op && mm_op_is_nbc(t->op) ? "; blocking phase: I-call + MPI_Wait" : "");
    /* incomplete: its share of --launch-budget-s ended it before --nrep (meta.json ended_by) */
    if (t->status == MM_TEST_INCOMPLETE && head2 >= 0 && (size_t)head2 < len)
        snprintf(out + head2, len - (size_t)head2, "; its time budget ended it at %ld of %ld repetitions",
                 t->nrep, t->nrep_asked);
}

void mm_progress_print(const mm_test_facts *facts, void *ctx) {
    const mm_quick_table *table = ctx;
    char line[640];
    mm_progress_format(facts, table ? table->cfg : NULL, line, sizeof line);
    fprintf(stderr, "mpimeter-bench: %s\n", line);
    fflush(stderr);
}
