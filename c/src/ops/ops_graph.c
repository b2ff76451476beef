/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_graph.c — the distributed graph of --graph-file, on which the neighborhood collectives run
 * instead of the Cartesian topology (MPI-3.1 §7.5.4, MPI_Dist_graph_create_adjacent).
 *
 * Format (docs/FORMAT.md, "graph file"): text, one line per rank in rank order from 0,
 *     R: D1 D2 ...
 *   R the rank, D1 D2 ... its out-neighbours (the ranks it sends to), whole numbers separated by
 *   blanks; a rank with no out-neighbour has "R:" alone. '#' starts a comment to the end of the
 *   line; blank lines are skipped. A rank may name itself; it may not name a rank twice (MPI
 *   would accept the multigraph, but which of two messages between the same ranks lands in which
 *   block is then the library's choice, and the check after the test could not say). The
 *   in-neighbours of a rank are the ranks whose lines name it, in rank order.
 * Why: stencils on irregular meshes exchange along a graph, not a grid; the project measures the
 *   neighborhood collectives on a distributed graph read from a file.
 * Untrusted input: at most MM_GRAPH_TEXT_MAX bytes, no NUL byte, every number checked; the
 *   reading of the file itself (a regular file, bounded) is the app's (parse_graph.c).
 * Cost: O(bytes + edges log degree) per parse; each rank parses the text once per test setup. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_config.h"
#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

enum { MM__GRAPH_MAX_NODES = 1 << 20 };

/* Every edge of the text, in file order. */
typedef struct mm__graph_edges {
    int nodes;
    long n;
    int *src, *dst, *line;
} mm__graph_edges;

static void mm__edges_free(mm__graph_edges *e) {
    free(e->src);
    free(e->dst);
    free(e->line);
    memset(e, 0, sizeof *e);
}

static int mm__blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* What a message quotes of the file: at most MM__EXCERPT bytes of [p, end), a control byte as '?'
 * (an escape sequence in a file must not reach a terminal through the error line). */
enum { MM__EXCERPT = 40 };
static const char *mm__excerpt(const char *p, const char *end, char out[MM__EXCERPT + 1]) {
    size_t n = 0;
    for (; p < end && n < MM__EXCERPT; p++, n++)
        out[n] = ((unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p;
    out[n] = '\0';
    return out;
}
static int mm__digit(char c) { return c >= '0' && c <= '9'; }

/* A whole number at *p (advanced past it), at most MM__GRAPH_MAX_NODES - 1; -1 if none. */
static long mm__number(const char **p, const char *end) {
    if (*p >= end || !mm__digit(**p)) return -1;
    long v = 0;
    while (*p < end && mm__digit(**p)) {
        v = v * 10 + (**p - '0');
        if (v >= MM__GRAPH_MAX_NODES) return -2;
        (*p)++;
    }
    return v;
}

static int mm__int_cmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A rank's out-neighbours from q (past its ':') to eol, appended to e's edges. 0, or MM_E_INPUT with
 * why. */
static mm_status mm__parse_neighbours(mm__graph_edges *e, long rank, int line, const char *q,
                                      const char *eol, char *why, size_t why_len) {
    for (;;) {
        while (q < eol && mm__blank(*q)) q++;
        if (q == eol) return 0;
        const char *at = q;
        long d = mm__number(&q, eol);
        if (d < 0 || (q < eol && !mm__blank(*q))) {
            const char *word_end = at;
            while (word_end < eol && !mm__blank(*word_end)) word_end++;
            char quoted[MM__EXCERPT + 1];
            snprintf(why, why_len, "line %d: '%s' is not a rank; allowed: whole numbers from 0 below "
                     "%d, separated by blanks", line, mm__excerpt(at, word_end, quoted), MM__GRAPH_MAX_NODES);
            return MM_E_INPUT;
        }
        e->src[e->n] = (int)rank;
        e->dst[e->n] = (int)d;
        e->line[e->n] = line;
        e->n++;
    }
}

/* Each out-neighbour of a rank's line (e's edges from first on) once: a sorted copy has no two
 * equal. 0, or MM_E_INPUT with why. */
static mm_status mm__distinct_neighbours(const mm__graph_edges *e, long first, long rank, int line,
                                         char *why, size_t why_len) {
    long deg = e->n - first;
    if (deg < 2) return 0;
    int *copy = malloc((size_t)deg * sizeof(int));
    if (!copy) {
        snprintf(why, why_len, "out of memory reading the graph");
        return MM_E_INPUT;
    }
    memcpy(copy, e->dst + first, (size_t)deg * sizeof(int));
    qsort(copy, (size_t)deg, sizeof(int), mm__int_cmp);
    int rc = 0;
    for (long i = 1; i < deg && rc == 0; i++)
        if (copy[i] == copy[i - 1]) {
            snprintf(why, why_len, "line %d: rank %ld names rank %d twice; allowed: each "
                     "out-neighbour once", line, rank, copy[i]);
            rc = MM_E_INPUT;
        }
    free(copy);
    return rc;
}

/* One rank's line, [q, eol) without its comment and not blank: "R: D1 D2 ...", R the next rank
 * of e. 0, or MM_E_INPUT with why. */
static mm_status mm__parse_rank_line(mm__graph_edges *e, int line, const char *q, const char *eol,
                                     char *why, size_t why_len) {
    const char *start = q;
    long rank = mm__number(&q, eol);
    while (q < eol && mm__blank(*q)) q++;
    if (rank < 0 || q == eol || *q != ':') {
        char quoted[MM__EXCERPT + 1];
        snprintf(why, why_len, "line %d: '%s' is not a rank's line; allowed: 'R: D1 D2 ...' (R the "
                 "rank, D1 D2 ... its out-neighbours, whole numbers below %d)",
                 line, mm__excerpt(start, eol, quoted), MM__GRAPH_MAX_NODES);
        return MM_E_INPUT;
    }
    if (rank != e->nodes) {
        snprintf(why, why_len, "line %d: rank %ld where rank %d was expected; allowed: one line per "
                 "rank, in order from rank 0", line, rank, e->nodes);
        return MM_E_INPUT;
    }
    e->nodes++;
    long first = e->n;
    if (mm__parse_neighbours(e, rank, line, q + 1, eol, why, why_len) != 0) return MM_E_INPUT;
    return mm__distinct_neighbours(e, first, rank, line, why, why_len);
}

/* Parses the text into e. 0, or MM_E_INPUT with why. */
static mm_status mm__graph_parse(const char *text, size_t len, mm__graph_edges *e, char *why, size_t why_len) {
    memset(e, 0, sizeof *e);
    if (len > MM_GRAPH_TEXT_MAX) {
        snprintf(why, why_len, "the file holds more than %d bytes; allowed: a graph file of at most %d bytes",
                 MM_GRAPH_TEXT_MAX, MM_GRAPH_TEXT_MAX);
        return MM_E_INPUT;
    }
    if (memchr(text, '\0', len)) {
        snprintf(why, why_len, "the file holds a NUL byte: it is not a text file; allowed: lines 'R: D1 D2 ...'");
        return MM_E_INPUT;
    }
    size_t cap = len / 2 + 1; /* an edge takes at least a digit and a blank */
    e->src = malloc(cap * sizeof(int));
    e->dst = malloc(cap * sizeof(int));
    e->line = malloc(cap * sizeof(int));
    if (!e->src || !e->dst || !e->line) {
        snprintf(why, why_len, "out of memory reading the graph");
        return MM_E_INPUT;
    }
    const char *p = text, *end = text + len;
    for (int line = 1; p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl : end, *hash = memchr(p, '#', (size_t)(stop - p));
        const char *q = p, *eol = hash ? hash : stop;
        p = nl ? nl + 1 : end;
        while (q < eol && mm__blank(*q)) q++;
        if (q == eol) continue; /* blank or comment */
        if (mm__parse_rank_line(e, line, q, eol, why, why_len) != 0) return MM_E_INPUT;
    }
    if (e->nodes == 0) {
        snprintf(why, why_len, "no rank's line in the file: it is not a graph; allowed: one line 'R: D1 D2 ...' "
                 "per rank, in order from rank 0");
        return MM_E_INPUT;
    }
    for (long i = 0; i < e->n; i++)
        if (e->dst[i] >= e->nodes) {
            snprintf(why, why_len, "line %d: rank %d names rank %d, which the graph does not hold (its "
                     "%d lines are ranks 0 to %d)", e->line[i], e->src[i], e->dst[i], e->nodes, e->nodes - 1);
            return MM_E_INPUT;
        }
    return 0;
}

mm_status mm_graph_check(const char *text, size_t len, struct mm_graph_facts *facts, char *why, size_t why_len) {
    mm__graph_edges e;
    memset(facts, 0, sizeof *facts);
    if (mm__graph_parse(text, len, &e, why, why_len) != 0) {
        mm__edges_free(&e);
        return MM_E_INPUT;
    }
    int *out = calloc((size_t)e.nodes, sizeof(int)), *in = calloc((size_t)e.nodes, sizeof(int));
    if (!out || !in) {
        free(out);
        free(in);
        mm__edges_free(&e);
        snprintf(why, why_len, "out of memory reading the graph");
        return MM_E_INPUT;
    }
    for (long i = 0; i < e.n; i++) {
        out[e.src[i]]++;
        in[e.dst[i]]++;
    }
    facts->nodes = e.nodes;
    facts->edges = e.n;
    facts->out_min = facts->out_max = out[0];
    facts->in_min = facts->in_max = in[0];
    for (int r = 1; r < e.nodes; r++) {
        if (out[r] < facts->out_min) facts->out_min = out[r];
        if (out[r] > facts->out_max) facts->out_max = out[r];
        if (in[r] < facts->in_min) facts->in_min = in[r];
        if (in[r] > facts->in_max) facts->in_max = in[r];
    }
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64, as the MPI_T digest (output/mpit.c) */
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= 0x100000001b3ULL;
    }
    snprintf(facts->digest, sizeof facts->digest, "%016" PRIx64, h);
    free(out);
    free(in);
    mm__edges_free(&e);
    return 0;
}

mm_status mm__graph_neighbors(const char *text, int rank, mm__graph_adjacency *adj, char *why, size_t why_len) {
    memset(adj, 0, sizeof *adj);
    mm__graph_edges e;
    int rc = mm__graph_parse(text, strlen(text), &e, why, why_len) == 0 ? 0 : MM_E_FAILED;
    if (rc == 0 && (rank < 0 || rank >= e.nodes))
        rc = mm_error_set(why, why_len, "rank %d is not a node of the --graph-file graph (%ld nodes)",
                          rank, (long)e.nodes);
    long nin = 0, nout = 0;
    for (long i = 0; rc == 0 && i < e.n; i++) {
        nin += e.dst[i] == rank;
        nout += e.src[i] == rank;
    }
    /* one element more: MPI wants valid arrays even for degree 0 */
    if (rc == 0) {
        adj->sources = malloc((size_t)(nin + 1) * sizeof(int));
        adj->source_block = malloc((size_t)(nin + 1) * sizeof(int));
        adj->destinations = malloc((size_t)(nout + 1) * sizeof(int));
        if (!adj->sources || !adj->source_block || !adj->destinations)
            rc = mm_error_set(why, why_len, "out of memory for the %ld in- and %ld out-neighbours "
                              "of rank %d", nin, nout, rank);
    }
    for (long i = 0; rc == 0 && i < e.n; i++) {
        if (e.src[i] == rank) adj->destinations[adj->outdegree++] = e.dst[i];
        if (e.dst[i] != rank) continue;
        /* which of the source's send blocks comes here: rank's place in its line */
        int block = 0;
        for (long k = i - 1; k >= 0 && e.src[k] == e.src[i]; k--) block++;
        adj->source_block[adj->indegree] = block;
        adj->sources[adj->indegree++] = e.src[i];
    }
    mm__edges_free(&e);
    if (rc != 0) mm__graph_adjacency_free(adj);
    return rc;
}

void mm__graph_adjacency_free(mm__graph_adjacency *adj) {
    free(adj->sources);
    free(adj->source_block);
    free(adj->destinations);
    memset(adj, 0, sizeof *adj);
}
