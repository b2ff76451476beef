/* SPDX-License-Identifier: BSD-3-Clause */
/* test_algorithms.c — the candidate names of an MPICH algorithm variable's description
 * (mm_algorithms_candidates, c/src/ops/algorithms.c): MPICH 4.0 glues each "name - text" item to
 * the text before it, so every suffix of the glued word is a candidate, the one after
 * "algorithm"/"algorithms" first. Which one is a name is MPICH's to say (c/tests/mpi/test_algorithms.py). */
#include <string.h>

#include "mm_algorithms.h"
#include "mm_check.h"

static char cands[MM_ALG_MAX_CANDIDATES][MM_ALG_NAME_LEN];
static int group[MM_ALG_MAX_CANDIDATES];

static int find(int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (strcmp(cands[i], name) == 0) return i;
    return -1;
}

/* MPICH 4.0.2's MPIR_CVAR_BARRIER_INTRA_ALGORITHM, as MPI_T gives it */
static const char *const BARRIER =
    "Variable to select barrier algorithmauto - Internal algorithm selection (can be overridden with "
    "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)nb            - Force nonblocking algorithmsmp           - "
    "Force smp algorithmdissemination - Force dissemination algorithm";

static void test_barrier(void) {
    int n = mm_algorithms_candidates(BARRIER, cands, group, MM_ALG_MAX_CANDIDATES);
    /* four items; the one after "algorithm" first in each */
    CHECK_EQ_INT(group[n - 1], 3);
    CHECK_EQ_INT(find(n, "auto"), 0);
    CHECK_EQ_INT(group[find(n, "nb")], 1);
    int smp = find(n, "smp");
    CHECK(smp >= 0 && group[smp] == 2);
    CHECK(find(n, "mp") == smp + 1);         /* after "algorithms": the second guess */
    CHECK(find(n, "p") > smp);               /* then every suffix, shortest first */
    CHECK(find(n, "algorithmsmp") > smp);
    CHECK(find(n, "dissemination") >= 0);
    CHECK_EQ_INT(find(n, "FILE)nb"), -1);     /* only [A-Za-z0-9_]: the ")" ends the run */
    CHECK_EQ_INT(find(n, "Internal"), -1);    /* no separator after it */
    /* no name twice: "auto" of item 0 is not listed again for another item */
    int autos = 0;
    for (int i = 0; i < n; i++) autos += strcmp(cands[i], "auto") == 0;
    CHECK_EQ_INT(autos, 1);
}

static void test_edges(void) {
    CHECK_EQ_INT(mm_algorithms_candidates("", cands, group, MM_ALG_MAX_CANDIDATES), 0);
    CHECK_EQ_INT(mm_algorithms_candidates("no items - at all", cands, group, MM_ALG_MAX_CANDIDATES), 5);
    CHECK_EQ_INT(mm_algorithms_candidates("a-b c -x", cands, group, MM_ALG_MAX_CANDIDATES), 0);
    /* max is kept */
    CHECK_EQ_INT(mm_algorithms_candidates(BARRIER, cands, group, 3), 3);
}

int main(void) {
    test_barrier();
    test_edges();
    return mm_check_summary("test_algorithms");
}
