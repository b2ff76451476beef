/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_reduce_raw — test tool: reads a full raw.csv (one row per rank and repetition, as a launch
 * writes it) and writes the rows --raw reduced would have written for the same timestamps, through
 * the binary's own writer (mm_raw_write_test). The Python tests compare them with the run times the
 * analysis computes from the full rows: one place computes a run time (the analysis), and the
 * reduced mode of the binary is checked against it.
 *
 * usage: mm_reduce_raw RAW.CSV NPROCS > reduced.csv   (epoch 0: the times are already relative) */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_output.h"

typedef struct {
    int test, rank, rep, valid, has_global;
    char op[MM_NAME_LEN];
    int64_t size, start, end, gstart, gend;
} row;

static int parse_row(const char *line, row *r) {
    char gs[32] = "", ge[32] = "";
    int n = sscanf(line, "%d,%31[^,],%" SCNd64 ",%d,%d,%" SCNd64 ",%" SCNd64 ",%d,%31[^,\n],%31[^,\n]",
                   &r->test, r->op, &r->size, &r->rank, &r->rep, &r->start, &r->end, &r->valid, gs,
                   ge);
    if (n < 8) return -1;
    r->has_global = n == 10;
    r->gstart = r->has_global ? strtoll(gs, NULL, 10) : 0;
    r->gend = r->has_global ? strtoll(ge, NULL, 10) : 0;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s RAW.CSV NPROCS\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    int nprocs = atoi(argv[2]);
    if (!f || nprocs < 1) return 2;
    size_t cap = 1 << 16, n = 0;
    row *rows = malloc(cap * sizeof *rows);
    char line[512];
    if (!fgets(line, sizeof line, f)) return 2; /* header */
    while (fgets(line, sizeof line, f)) {
        if (n == cap) rows = realloc(rows, (cap *= 2) * sizeof *rows);
        if (parse_row(line, &rows[n]) == 0) n++;
    }
    fclose(f);
    fputs(MM_RAW_HEADER, stdout);
    /* rows of a test are contiguous, rank-major: [rank * nrep + rep] as the writer wants them */
    for (size_t lo = 0; lo < n;) {
        size_t hi = lo;
        while (hi < n && rows[hi].test == rows[lo].test) hi++;
        long nrep = (long)(hi - lo) / nprocs;
        int64_t *a = malloc((hi - lo) * 4 * sizeof(int64_t));
        int32_t *inv = malloc((hi - lo) * sizeof(int32_t));
        for (size_t i = lo; i < hi; i++) {
            size_t k = (size_t)rows[i].rank * (size_t)nrep + (size_t)rows[i].rep;
            a[k] = rows[i].start;
            a[(hi - lo) + k] = rows[i].end;
            a[2 * (hi - lo) + k] = rows[i].gstart;
            a[3 * (hi - lo) + k] = rows[i].gend;
            inv[k] = rows[i].valid ? 0 : 1;
        }
        mm_op op = {0};
        op.name = rows[lo].op;
        mm_test t = {0};
        t.index = rows[lo].test;
        t.op = &op;
        t.size = rows[lo].size;
        if (mm_raw_write_test(stdout, &t, nprocs, nrep, a, a + (hi - lo), a + 2 * (hi - lo),
                              a + 3 * (hi - lo), inv, NULL, 0, rows[lo].has_global, 1) != 0)
            return 1;
        free(a);
        free(inv);
        lo = hi;
    }
    free(rows);
    return 0;
}
