/* SPDX-License-Identifier: BSD-3-Clause */
/* quick.c — the quick table: mpimeter-bench without --out, run as OSU's osu_latency is.
 *
 * Without --out a launch writes a new temporary folder (named at the end, so that `mpimeter
 * analyze` can read it), measures each operation's sizes in ascending order and prints one
 * table row per size on stdout as it finishes: the median over the repetitions valid on every
 * rank, one-way for a ping-pong (half the round trip, as the analysis reports it: docs/FORMAT.md,
 * operations[op].round_trip) with its bandwidth, size / one-way latency. The copy probe (a bound
 * for the analysis, nearly a second before the first test) does not run unless
 * --copy-probe-bytes is given, and the process sync is a barrier (no clock sync) unless
 * --procsync is given, so that the first row comes within a second of MPI_Init. What the user
 * gave wins: --order shuffled, --copy-probe-bytes, --procsync, --quiet (no table). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app_output.h"
#include "mm_error.h"
#include "mm_ops.h"
#include "parse_internal.h"

mm_status mm__config_quick_defaults(mm_config *cfg, const char *seen, const mm_option_spec *table,
                                    char *err, size_t len) {
    if (cfg->run.mode != MM_MODE_BENCH) return 0;
    const mm_option_spec *out = mm_option_find("out", 3);
    if (out && seen[out - table]) return 0;
    if (cfg->output.force)
        return mm_fail(err, len, "--force: only with --out (without --out the launch writes a new "
                                 "temporary folder, which needs no --force)");
    const mm_option_spec *order = mm_option_find("order", 5);
    const mm_option_spec *probe = mm_option_find("copy-probe-bytes", 16);
    const mm_option_spec *procsync = mm_option_find("procsync", 8);
    cfg->output.quick = 1;
    if (!(order && seen[order - table])) cfg->plan.order_ascending = 1;
    if (!(probe && seen[probe - table])) cfg->probe.copy_probe_bytes = 0;
    /* OSU's and IMB's way: a barrier before each repetition and each rank's own clock, so no
     * clock sync before the first row, and a ping-pong's run time is its initiator's round
     * trip, which no sync error can stretch */
    if (!(procsync && seen[procsync - table])) snprintf(cfg->procsync, sizeof cfg->procsync, "barrier");
    return 0;
}

mm_status mm_quick_make_folder(mm_config *cfg, char *err, size_t len) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp) tmp = "/tmp";
    char path[MM_PATH_LEN];
    int n = snprintf(path, sizeof path, "%s/mpimeter-XXXXXX", tmp);
    if (n < 0 || (size_t)n + 32 >= sizeof path)
        return mm_fail(err, len, "--out not given and $TMPDIR is too long for a launch folder "
                                 "(%zu characters); give --out DIR", strlen(tmp));
    if (!mkdtemp(path))
        return mm_fail(err, len, "--out not given and no temporary folder could be made in %s "
                                 "(%s); give --out DIR", tmp, strerror(errno));
    snprintf(cfg->out, sizeof cfg->out, "%s", path);
    return 0;
}

void mm_quick_remove_unused_folder(const mm_config *cfg, int rank, FILE *say) {
    if (rank != 0 || !cfg->output.quick || !cfg->out[0]) return;
    if (rmdir(cfg->out) != 0 && (errno == ENOTEMPTY || errno == EEXIST)) /* only when empty */
        fprintf(say, "mpimeter-bench: what the launch wrote is in %s\n", cfg->out);
}

static void mm__quick_header(FILE *f, const mm_op *op, int one_way) {
    const char *unit = op->flags & MM_OP_SIZE_IS_DURATION ? "ns" : "B";
    if (one_way)
        fprintf(f, "# %s: one-way latency (half the round trip, median of the valid repetitions)\n"
                   "# %-12s %14s %14s %12s\n",
                op->name, "Size [B]", "One-way [us]", "MB/s", "Valid");
    else
        /* a nonblocking collective's median is its blocking phase's (progress.c says why) */
        fprintf(f, "# %s: %s (median of the valid repetitions)\n# %-12s %14s %12s\n", op->name,
                mm_op_is_nbc(op) ? "blocking time, I-call + MPI_Wait" : "run time",
                unit[0] == 'n' ? "Delay [ns]" : "Size [B]", "Median [us]", "Valid");
}

void mm_quick_table_row(const mm_test_facts *f, void *ctx) {
    mm_quick_table *table = ctx;
    const mm_test *t = f->test;
    if (!t->op) return;
    int one_way = (t->op->flags & MM_OP_ROUND_TRIP) != 0;
    if (table->op != t->op) {
        if (table->op) fputc('\n', stdout);
        mm__quick_header(stdout, t->op, one_way);
        table->op = t->op;
    }
    char valid[48], label[96];
    snprintf(valid, sizeof valid, "%ld/%ld", f->valid, t->nrep);
    mm_test_label(table->cfg, t, label, sizeof label);
    if (t->status != MM_TEST_COMPLETE && t->status != MM_TEST_INCOMPLETE) {
        printf("  %-12" PRId64 " failed (%s: %s)", t->size, t->error_code, t->error_message);
    } else if (!isfinite(f->median_ns)) {
        /* n/a: valid repetitions whose run times stayed on their ranks (a --nprocs test) */
        printf("  %-12" PRId64 " %14s%s %12s", t->size, f->valid > 0 ? "n/a" : "none",
               one_way ? "               " : "", valid);
    } else if (one_way) {
        double us = f->median_ns / 2 / 1e3;
        /* bytes per microsecond are MB/s */
        printf("  %-12" PRId64 " %14.2f %14.2f %12s", t->size, us, (double)t->size / us, valid);
    } else {
        printf("  %-12" PRId64 " %14.2f %12s", t->size, f->median_ns / 1e3, valid);
    }
    /* the test among those of this size: its root, ranks or pieces when the launch varies them */
    printf("%s%s", label[0] ? "   " : "", label);
    if (t->status == MM_TEST_INCOMPLETE) /* its share of --launch-budget-s ended it */
        printf("   (time budget: %ld of %ld repetitions)", t->nrep, t->nrep_asked);
    putchar('\n');
    fflush(stdout);
}
