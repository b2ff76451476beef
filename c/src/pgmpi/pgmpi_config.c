/* SPDX-License-Identifier: BSD-3-Clause */
/* pgmpi_config.c — reads the configuration of libmpimeter-pgmpi.so (MPIMETER_PGMPI_CONFIG).
 * What: a line format (docs/GUIDE.md, "Replacing a violated guideline"): the first line is
 * MM_PGMPI_CONFIG_HEADER; then blank lines, comments (#) and up to MM_PGMPI_MAX_ROUTES lines
 *     route OP MOCKUP NPROCS MIN_BYTES MAX_BYTES
 * each routing OP's calls on communicators of NPROCS ranks whose data (count x the datatype's
 * size) lies in MIN_BYTES..MAX_BYTES to MOCKUP. Routes of one OP and NPROCS must not overlap.
 * Why so strict: the file decides what code an application runs instead of its MPI calls; a
 * line the library could not read must stop the launch, never be skipped.
 * Bounds: the file at most MM_PGMPI_MAX_CONFIG_BYTES, a line MM_PGMPI_MAX_LINE characters.
 * Cost: one read of the file at MPI_Init. */
#include "pgmpi_config.h"
#include "mm_error.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const mm_pgmpi_known_route mm_pgmpi_known[] = {
    {"allreduce", "allreduce-as-reduce-bcast"},
    {"allreduce", "allreduce-as-rs-allgatherv"},
};
const int mm_pgmpi_known_count = (int)(sizeof mm_pgmpi_known / sizeof mm_pgmpi_known[0]);

#define MM__ROUTE_TEXT "route OP MOCKUP NPROCS MIN_BYTES MAX_BYTES"

static mm_status mm__fail(char *err, size_t errlen, const char *path, int line, const char *what) {
    if (line > 0)
        snprintf(err, errlen, "%s=%s: line %d: %s", MM_PGMPI_CONFIG_ENV, path, line, what);
    else
        snprintf(err, errlen, "%s=%s: %s", MM_PGMPI_CONFIG_ENV, path, what);
    return MM_E_INPUT;
}

/* A decimal integer in lo..hi, the whole word. */
static mm_status mm__integer(const char *word, int64_t lo, int64_t hi, int64_t *out) {
    if (!word || !*word || word[0] == '+' || word[0] == '-') return MM_E_INPUT;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(word, &end, 10);
    if (errno || *end || v < lo || v > hi) return MM_E_INPUT;
    *out = v;
    return 0;
}

static int mm__known_index(const char *op, const char *mockup) {
    for (int i = 0; i < mm_pgmpi_known_count; i++)
        if (!strcmp(mm_pgmpi_known[i].op, op) && !strcmp(mm_pgmpi_known[i].mockup, mockup)) return i;
    return -1;
}

/* The routes the library knows, "op -> mockup, ...", for the message. */
static void mm__known_text(char *buf, size_t len) {
    buf[0] = '\0';
    for (int i = 0; i < mm_pgmpi_known_count; i++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s %s", i ? ", " : "", mm_pgmpi_known[i].op, mm_pgmpi_known[i].mockup);
    }
}

/* One "route ..." line into routes[n]; its message into what on failure. */
static mm_status mm__route_line(char *line, mm_pgmpi_route *r, char *what, size_t len) {
    char *words[7] = {0};
    int n = 0;
    for (char *save = NULL, *w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (n == 7) break;
        words[n++] = w;
    }
    if (n != 6 || strcmp(words[0], "route")) {
        snprintf(what, len, "not a line '" MM__ROUTE_TEXT "', a comment (#) or blank");
        return MM_E_INPUT;
    }
    int k = mm__known_index(words[1], words[2]);
    if (k < 0) {
        char allowed[256];
        mm__known_text(allowed, sizeof allowed);
        snprintf(what, len, "'%.40s %.60s': not a replacement this library makes (it makes: %s)", words[1], words[2],
                 allowed);
        return MM_E_INPUT;
    }
    int64_t nprocs = 0, lo = 0, hi = 0;
    if (mm__integer(words[3], 1, INT32_MAX, &nprocs) || mm__integer(words[4], 0, INT64_MAX / 2, &lo) ||
        mm__integer(words[5], 0, INT64_MAX / 2, &hi) || lo > hi) {
        snprintf(what, len, "NPROCS must be an integer >= 1 and MIN_BYTES <= MAX_BYTES integers >= 0 "
                            "(" MM__ROUTE_TEXT ")");
        return MM_E_INPUT;
    }
    *r = (mm_pgmpi_route){.op = mm_pgmpi_known[k].op, .mockup = mm_pgmpi_known[k].mockup, .nprocs = (int)nprocs,
                          .min_bytes = lo, .max_bytes = hi, .calls = 0};
    return 0;
}

static int mm__overlaps(const mm_pgmpi_route *a, const mm_pgmpi_route *b) {
    return !strcmp(a->op, b->op) && a->nprocs == b->nprocs && a->min_bytes <= b->max_bytes &&
           b->min_bytes <= a->max_bytes;
}

static uint64_t mm__fnv1a64(const char *text, size_t len) {
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
    return h;
}

/* The lines of text (NUL-terminated, len bytes) into routes. */
static mm_status mm__parse(char *text, const char *path, mm_pgmpi_route *routes, int *nroutes, char *err,
                           size_t errlen) {
    char what[512];
    int lineno = 0;
    *nroutes = 0;
    for (char *line = text, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        lineno++;
        if (strlen(line) > MM_PGMPI_MAX_LINE) return mm__fail(err, errlen, path, lineno, "longer than 256 characters");
        for (const char *c = line; *c; c++)
            if ((unsigned char)*c < 0x20 && *c != '\t')
                return mm__fail(err, errlen, path, lineno, "holds a control character");
        if (lineno == 1) {
            if (strcmp(line, MM_PGMPI_CONFIG_HEADER))
                return mm__fail(err, errlen, path, 0, "the first line must be '" MM_PGMPI_CONFIG_HEADER
                                                      "' (write the file with mpimeter guidelines --replace)");
            continue;
        }
        const char *c = line + strspn(line, " \t");
        if (!*c || *c == '#') continue;
        if (*nroutes == MM_PGMPI_MAX_ROUTES) return mm__fail(err, errlen, path, lineno, "more than 64 routes");
        mm_pgmpi_route *r = &routes[*nroutes];
        if (mm__route_line(line, r, what, sizeof what))
            return mm__fail(err, errlen, path, lineno, what);
        for (int i = 0; i < *nroutes; i++)
            if (mm__overlaps(&routes[i], r))
                return mm__fail(err, errlen, path, lineno, "its sizes overlap an earlier route of the same "
                                                           "operation and NPROCS");
        (*nroutes)++;
    }
    return 0; /* no route: every call runs the original (no guideline was violated) */
}

mm_status mm_pgmpi_read_config(const char *path, mm_pgmpi_route *routes, int *nroutes, uint64_t *fnv,
                               char *err, size_t errlen) {
    if (!path || !*path)
        return mm__fail(err, errlen, "", 0, "not set: libmpimeter-pgmpi.so is preloaded and needs its "
                                            "configuration (mpimeter guidelines --replace FILE writes one)");
    FILE *f = fopen(path, "rb");
    if (!f) return mm__fail(err, errlen, path, 0, strerror(errno));
    char *text = malloc(MM_PGMPI_MAX_CONFIG_BYTES + 2);
    size_t len = text ? fread(text, 1, MM_PGMPI_MAX_CONFIG_BYTES + 1, f) : 0;
    int read_error = ferror(f);
    fclose(f);
    if (!text) return mm__fail(err, errlen, path, 0, "out of memory");
    mm_status rc;
    if (read_error)
        rc = mm__fail(err, errlen, path, 0, "cannot be read");
    else if (len > MM_PGMPI_MAX_CONFIG_BYTES)
        rc = mm__fail(err, errlen, path, 0, "larger than 65536 bytes");
    else if (memchr(text, '\0', len))
        rc = mm__fail(err, errlen, path, 0, "holds a NUL byte: not a text file");
    else {
        text[len] = '\0';
        *fnv = mm__fnv1a64(text, len);
        rc = mm__parse(text, path, routes, nroutes, err, errlen);
    }
    free(text);
    return rc;
}
