/* SPDX-License-Identifier: BSD-3-Clause */
/* test_graph.c — the --graph-file parser (c/src/ops/ops_graph.c): facts of a graph, a rank's
 * neighbours with the block each source sends it, and the refusals. No MPI call. */
#include <stdlib.h>
#include <string.h>

#include "mm_check.h"
#include "mm_error.h"
#include "mm_config.h"
#include "mm_ops.h"
#include "../../src/ops/ops_internal.h"

static const char ring[] = "# a ring with a chord\n0: 1 3\n1: 2\n\n2: 3 0   # comment\n3: 0\n";

static void test_facts(void) {
    mm_graph_facts f;
    char why[256] = "";
    CHECK_EQ_INT(mm_graph_check(ring, strlen(ring), &f, why, sizeof why), 0);
    CHECK_EQ_INT(f.nodes, 4);
    CHECK_EQ_INT(f.edges, 6);
    CHECK_EQ_INT(f.out_min, 1);
    CHECK_EQ_INT(f.out_max, 2);
    CHECK_EQ_INT(f.in_min, 1); /* rank 1 and 2: one each; ranks 0 and 3: two */
    CHECK_EQ_INT(f.in_max, 2);
    CHECK_EQ_INT(strlen(f.digest), 16);
    /* one byte more changes the digest */
    mm_graph_facts g;
    char other[sizeof ring + 1];
    snprintf(other, sizeof other, "%s ", ring);
    CHECK_EQ_INT(mm_graph_check(other, strlen(other), &g, why, sizeof why), 0);
    CHECK(strcmp(f.digest, g.digest) != 0);
    /* a rank without out-neighbours, a self-loop */
    const char lone[] = "0: 0\n1:\n";
    CHECK_EQ_INT(mm_graph_check(lone, strlen(lone), &f, why, sizeof why), 0);
    CHECK_EQ_INT(f.out_min, 0);
    CHECK_EQ_INT(f.in_max, 1);
}

/* A rank that receives from two ranks: first (its block of that rank's sends), then second. */
static void expect_two_sources(const mm__graph_adjacency *adj, int first, int first_block,
                               int second, int second_block) {
    CHECK_EQ_INT(adj->indegree, 2);
    CHECK_EQ_INT(adj->sources[0], first);
    CHECK_EQ_INT(adj->source_block[0], first_block);
    CHECK_EQ_INT(adj->sources[1], second);
    CHECK_EQ_INT(adj->source_block[1], second_block);
}

static void test_neighbours(void) {
    mm__graph_adjacency adj;
    char why[256] = "";
    /* rank 0 receives from 2 (its second out-neighbour) and 3 (its first), in rank order */
    CHECK_EQ_INT(mm__graph_neighbors(ring, 0, &adj, why, sizeof why), 0);
    expect_two_sources(&adj, 2, 1, 3, 0);
    CHECK_EQ_INT(adj.outdegree, 2);
    CHECK_EQ_INT(adj.destinations[0], 1);
    CHECK_EQ_INT(adj.destinations[1], 3);
    mm__graph_adjacency_free(&adj);
    CHECK_EQ_INT(mm__graph_neighbors(ring, 3, &adj, why, sizeof why), 0);
    expect_two_sources(&adj, 0, 1, 2, 0);
    mm__graph_adjacency_free(&adj);
    CHECK_EQ_INT(mm__graph_neighbors(ring, 4, &adj, why, sizeof why), MM_E_FAILED); /* not a rank of the graph */
    CHECK(strstr(why, "rank 4 is not a node") != NULL);
}

static void refused(const char *text, size_t len, const char *needle) {
    mm_graph_facts f;
    char why[512] = "";
    CHECK_EQ_INT(mm_graph_check(text, len, &f, why, sizeof why), MM_E_INPUT);
    if (!strstr(why, needle)) fprintf(stderr, "expected '%s' in '%s'\n", needle, why);
    CHECK(strstr(why, needle) != NULL);
}

static void test_refusals(void) {
    refused("", 0, "no rank's line");
    refused("1: 0\n0: 1\n", 10, "rank 1 where rank 0 was expected");
    refused("0 1\n", 4, "is not a rank's line");
    refused("0: 1,2\n1:\n2:\n", 13, "'1,2' is not a rank");
    refused("0: 2\n1: 0\n", 10, "names rank 2, which the graph does not hold");
    refused("0: 1 1\n1:\n", 10, "names rank 1 twice");
    refused("0: 99999999999\n", 15, "is not a rank");
    refused("0: 1\0\n1: 0\n", 11, "NUL byte");
    /* a message quotes at most 40 bytes of the file, a control byte as '?' (no escape sequence
     * reaches the terminal) */
    refused("0: 1\033[2J\n1: 0\n", 14, "line 1: '1?[2J' is not a rank;");
    refused("\033]0;x\a: 1\n", 10, "line 1: '?]0;x?: 1' is not a rank's line");
    {
        char word[300];
        memcpy(word, "0: ", 3);
        memset(word + 3, 'a', 200);
        memcpy(word + 203, "\n1: 0\n", 7);
        mm_graph_facts f;
        char why[512] = "";
        CHECK_EQ_INT(mm_graph_check(word, 209, &f, why, sizeof why), MM_E_INPUT);
        const char *q = strchr(why, '\'');
        CHECK(q && strspn(q + 1, "a") == 40 && q[41] == '\'');
    }
    char *big = malloc(MM_GRAPH_TEXT_MAX + 2);
    memset(big, '#', MM_GRAPH_TEXT_MAX + 1);
    big[MM_GRAPH_TEXT_MAX + 1] = '\0';
    refused(big, MM_GRAPH_TEXT_MAX + 1, "at most 65536 bytes");
    free(big);
}

int main(void) {
    test_facts();
    test_neighbours();
    test_refusals();
    return mm_check_summary("test_graph");
}
