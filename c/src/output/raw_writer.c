/* SPDX-License-Identifier: BSD-3-Clause */
/* raw_writer.c — appends the rows of one test to raw.csv (docs/FORMAT.md).
 *
 * What: one row per rank per repetition, in the columns of MM_RAW_HEADER (mm_output.h: the one
 * definition of raw.csv's header), ordered by rank, then repetition (the last five: durations of a nonblocking collective's
 * components, empty for other operations); or, with --raw reduced, one row per repetition (rank -1,
 * min start, min start + max local duration, all-valid, min global start, max global end).
 * The launch epoch (rank 0's local time at the start) is subtracted from local and global
 * times alike; the g-columns are empty without a global clock.
 * Why: raw per-rank timestamps are kept and every reduction happens offline and repeatably
 * (LibSciBench's raw files; Hunold & Carpen-Amarie 2016 §4 on reporting run time from raw
 * data); integer nanoseconds because a double of epoch seconds has ~0.2 µs resolution.
 * Cost: O(nprocs * nrep) with a hand-written integer formatter into a 64 KiB block that is
 * fwrite'n whole (one fprintf per field is several times slower); then fflush, once per test,
 * so a killed launch loses at most the test that was running (the final meta.json write fsyncs
 * the file: mm_outdir_write_meta). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mm_output.h"
#include "mm_error.h"

/* A block of text in progress; the writer owns no state beyond one call. */
typedef struct mm__csv_block {
    FILE *f;
    size_t len;
    int failed;
    int prefix_len;
    char prefix[MM_NAME_LEN + 64]; /* "test,op,size,": the same on every row of the test */
    char text[1 << 16];
} mm__csv_block;

/* Room for the longest row: prefix (op name + two integers) + 12 integers and separators. */
#define MM__ROW_MAX (3 * MM_NAME_LEN + 17 * 21)

static void mm__block_flush(mm__csv_block *b) {
    if (b->len && !b->failed && fwrite(b->text, 1, b->len, b->f) != b->len) b->failed = 1;
    b->len = 0;
}

static inline void mm__put_char(mm__csv_block *b, char c) { b->text[b->len++] = c; }

static inline void mm__put_text(mm__csv_block *b, const char *s, size_t n) {
    memcpy(b->text + b->len, s, n);
    b->len += n;
}

/* Makes room for one row and starts it with the test's prefix. */
static inline void mm__row_begin(mm__csv_block *b) {
    if (b->len + MM__ROW_MAX > sizeof b->text) mm__block_flush(b);
    mm__put_text(b, b->prefix, (size_t)b->prefix_len);
}

static inline void mm__put_i64(mm__csv_block *b, int64_t v) {
    char digits[20];
    int n = 0;
    /* magnitude in unsigned arithmetic so INT64_MIN works */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) b->text[b->len++] = '-';
    while (n) b->text[b->len++] = digits[--n];
}

/* a - b without signed-overflow UB on garbage input (wraps instead). */
static inline int64_t mm__sub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }

static mm_status mm__finish(mm__csv_block *b) {
    mm__block_flush(b);
    if (b->failed || fflush(b->f) != 0) return MM_E_FAILED;
    return 0;
}

/* The checks both writers make; 0 when the arguments can be written. */
static mm_status mm__check_args(FILE *f, const mm_test *t, int nprocs, long nrep, const int64_t *start,
                                const int64_t *end, const int64_t *gstart, const int64_t *gend,
                                const int32_t *invalid, int has_global) {
    if (!f || !t || !t->op || !t->op->name || nprocs < 1 || nrep < 0 ||
        (nrep > 0 && (!start || !end || !invalid)) ||
        (nrep > 0 && has_global && (!gstart || !gend)) ||
        strlen(t->op->name) > MM_NAME_LEN || strpbrk(t->op->name, ",\n\r\"")) {
        errno = EINVAL;
        return MM_E_FAILED;
    }
    return 0;
}

/* An empty block for test t's rows (its arguments checked: the prefix fits). */
static mm__csv_block *mm__block_start(mm__csv_block *b, FILE *f, const mm_test *t) {
    b->f = f;
    b->len = 0;
    b->failed = 0;
    b->prefix_len = snprintf(b->prefix, sizeof b->prefix, "%d,%s,%lld,", t->index, t->op->name,
                             (long long)t->size);
    return b;
}

mm_status mm_raw_write_ranks(FILE *f, const mm_test *t, int first_rank, int nranks, long nrep,
                             const int64_t *start, const int64_t *end, const int64_t *gstart,
                             const int64_t *gend, const int32_t *invalid, const int64_t *const *components,
                             int64_t epoch_ns, int has_global) {
    if (first_rank < 0 || mm__check_args(f, t, nranks, nrep, start, end, gstart, gend, invalid, has_global))
        return MM_E_FAILED;
    mm__csv_block block;
    mm__csv_block *b = mm__block_start(&block, f, t);
    for (int r = 0; r < nranks; r++) {
        for (long rep = 0; rep < nrep; rep++) {
            size_t i = (size_t)r * (size_t)nrep + (size_t)rep;
            mm__row_begin(b);
            mm__put_i64(b, (int64_t)first_rank + r);
            mm__put_char(b, ',');
            mm__put_i64(b, rep);
            mm__put_char(b, ',');
            mm__put_i64(b, mm__sub(start[i], epoch_ns));
            mm__put_char(b, ',');
            mm__put_i64(b, mm__sub(end[i], epoch_ns));
            mm__put_char(b, ',');
            mm__put_char(b, invalid[i] == 0 ? '1' : '0');
            mm__put_char(b, ',');
            if (has_global) mm__put_i64(b, mm__sub(gstart[i], epoch_ns));
            mm__put_char(b, ',');
            if (has_global) mm__put_i64(b, mm__sub(gend[i], epoch_ns));
            for (int c = 0; c < MM_NBC_NCOMPONENTS; c++) {
                mm__put_char(b, ',');
                if (components && components[c][i] != INT64_MIN) mm__put_i64(b, components[c][i]);
            }
            mm__put_char(b, '\n');
        }
    }
    return mm__finish(b);
}

mm_status mm_raw_write_test(FILE *f, const mm_test *t, int nprocs, long nrep, const int64_t *start,
                            const int64_t *end, const int64_t *gstart, const int64_t *gend,
                            const int32_t *invalid, const int64_t *const *components, int64_t epoch_ns,
                            int has_global, int reduced) {
    if (mm__check_args(f, t, nprocs, nrep, start, end, gstart, gend, invalid, has_global)) return MM_E_FAILED;
    if (!reduced)
        return mm_raw_write_ranks(f, t, 0, nprocs, nrep, start, end, gstart, gend, invalid, components,
                                  epoch_ns, has_global);
    mm__csv_block block;
    mm__csv_block *b = mm__block_start(&block, f, t);

    for (long rep = 0; rep < nrep; rep++) {
        int64_t min_start = start[rep], max_dur = mm__sub(end[rep], start[rep]);
        int64_t min_gstart = has_global ? gstart[rep] : 0, max_gend = has_global ? gend[rep] : 0;
        int all_valid = invalid[rep] == 0;
        for (int r = 1; r < nprocs; r++) {
            size_t i = (size_t)r * (size_t)nrep + (size_t)rep;
            int64_t dur = mm__sub(end[i], start[i]);
            if (start[i] < min_start) min_start = start[i];
            if (dur > max_dur) max_dur = dur;
            if (invalid[i] != 0) all_valid = 0;
            if (has_global) {
                if (gstart[i] < min_gstart) min_gstart = gstart[i];
                if (gend[i] > max_gend) max_gend = gend[i];
            }
        }
        int64_t s = mm__sub(min_start, epoch_ns);
        mm__row_begin(b);
        mm__put_text(b, "-1,", 3);
        mm__put_i64(b, rep);
        mm__put_char(b, ',');
        mm__put_i64(b, s);
        mm__put_char(b, ',');
        mm__put_i64(b, (int64_t)((uint64_t)s + (uint64_t)max_dur));
        mm__put_char(b, ',');
        mm__put_char(b, all_valid ? '1' : '0');
        mm__put_char(b, ',');
        if (has_global) mm__put_i64(b, mm__sub(min_gstart, epoch_ns));
        mm__put_char(b, ',');
        if (has_global) mm__put_i64(b, mm__sub(max_gend, epoch_ns));
        for (int c = 0; c < MM_NBC_NCOMPONENTS; c++) {
            mm__put_char(b, ',');
            /* the slowest rank's component; empty when some rank has none */
            int64_t worst = INT64_MIN;
            for (int r = 0; components && r < nprocs; r++) {
                int64_t v = components[c][(size_t)r * (size_t)nrep + (size_t)rep];
                if (v == INT64_MIN) {
                    worst = INT64_MIN;
                    break;
                }
                if (v > worst) worst = v;
            }
            if (worst != INT64_MIN) mm__put_i64(b, worst);
        }
        mm__put_char(b, '\n');
    }
    return mm__finish(b);
}
