/* SPDX-License-Identifier: BSD-3-Clause */
/* test_ops.c — the operation table, the size check, datatypes and reduction ops, and the
 * buffer layouts that setup prepares. No MPI_Init: setup only allocates (the MPI calls are
 * exercised by the MPI tests). The operations that run on a plain timer: test_ops_timed.c. */
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../src/app/lists.h"
#include "../../src/ops/ops_internal.h"
#include "mm_bench.h"
#include "mm_check.h"
#include "mm_op_args.h"
#include "mm_error.h"
#include "mm_mockups.h"
#include "mm_ops.h"
#include "mm_timer.h"

static int contains(const char *haystack, const char *needle) {
    return haystack && needle && strstr(haystack, needle) != NULL;
}

static const char *const required_ops[] = {
    "allgather", "allgatherv", "allreduce", "alltoall",       "alltoallv",
    "barrier",   "bcast",      "exscan",    "gather",         "gatherv",
    "reduce",    "reduce_scatter",          "reduce_scatter_block",
    "scan",      "scatter",    "scatterv",  "delay",
    /* nonblocking collectives */
    "ibarrier",  "ibcast",     "igather",   "igatherv",       "iscatter",
    "iscatterv", "iallgather", "iallgatherv", "ialltoall",    "ialltoallv",
    "ireduce",   "iallreduce", "ireduce_scatter",             "ireduce_scatter_block",
    "iscan",     "iexscan",
    /* ping-pongs, master-worker and simple calls (SKaMPI's list of measurements) */
    "pingpong-send-recv", "pingpong-ssend-recv", "pingpong-isend-recv", "pingpong-send-irecv",
    "pingpong-isend-irecv", "pingpong-bsend-recv", "pingpong-sendrecv", "pingpong-sendrecv-replace",
    "pingpong-iprobe-recv", "pingpong-anytag", "mw-recv-any", "mw-waitany", "mw-waitsome",
    "mw-send", "mw-isend", "mw-bsend", "mw-ssend", "mw-workpieces", "simple-wtime", "simple-comm-rank",
    "simple-comm-size", "simple-iprobe", "simple-comm-split", "simple-comm-dup", "simple-empty", "simple-attach",
    /* one-sided (OSU's osu_put_latency ... osu_cas_latency, osu_put_bw, osu_get_bw) */
    "rma-put", "rma-get", "rma-acc", "rma-get-acc", "rma-fop", "rma-cas", "rma-rput", "rma-rget",
    "rma-put-bw", "rma-get-bw", "rma-win-create", "rma-win-free",
    /* IMB-RMA's contention patterns (One_put_all ... All_get_all) and all-to-one */
    "rma-one-put-all", "rma-one-get-all", "rma-all-put-all", "rma-all-get-all", "rma-all-put-one",
    "rma-all-get-one",
    /* neighborhood collectives and their nonblocking forms */
    "neighbor_allgather", "neighbor_alltoall", "neighbor_alltoallv", "ineighbor_allgather",
    "ineighbor_alltoall", "ineighbor_alltoallv",
    /* MPI-4 persistent collectives: the use and the init of each */
    "persistent-allgather", "persistent-allgather-init", "persistent-allreduce",
    "persistent-allreduce-init", "persistent-alltoall", "persistent-alltoall-init",
    "persistent-barrier", "persistent-barrier-init", "persistent-bcast", "persistent-bcast-init",
    "persistent-reduce", "persistent-reduce-init",
};
#define NREQUIRED (sizeof required_ops / sizeof *required_ops)

static int in_list(const char *name, const char *const *list, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0) return 1;
    return 0;
}

static void test_table(void) {
    CHECK_EQ_INT(mm_ops_count, NREQUIRED + mm_mockups_count); /* mock-ups: test_mockups */
    for (size_t i = 0; i < NREQUIRED; i++) {
        const mm_op *op = mm_op_find(required_ops[i]);
        CHECK(op != NULL);
        if (!op) continue;
        CHECK_STR(op->name, required_ops[i]);
    }
    static const char *const reducing[] = {"allreduce", "exscan", "reduce", "reduce_scatter",
                                           "reduce_scatter_block", "scan"};
    static const char *const rooted[] = {"bcast", "gather", "gatherv", "reduce", "scatter",
                                         "scatterv"};
    for (size_t i = 0; i < mm_ops_count; i++) {
        const mm_op *op = &mm_ops_table[i];
        CHECK(op->pattern && op->pattern[0] && op->constraints && op->constraints[0]);
        CHECK(op->setup && op->run && op->teardown);
        CHECK(mm_op_find(op->name) == op); /* names are unique */
        if (mm_mockup_of(op)) continue; /* their flags are their originals' (test_mockups) */
        /* a nonblocking collective has its blocking twin's flags ("ibcast": those of "bcast") */
        char persistent_twin[64] = "";
        if (strncmp(op->name, "persistent-", 11) == 0) {
            /* a persistent row (and its -init) has its blocking twin's flags */
            snprintf(persistent_twin, sizeof persistent_twin, "%s", op->name + 11);
            char *init = strstr(persistent_twin, "-init");
            if (init) *init = '\0';
            CHECK(mm_op_find(persistent_twin) != NULL);
            CHECK_STR(op->kind, MM_OP_KIND_PERSISTENT);
        }
        const char *twin = persistent_twin[0] ? persistent_twin : mm_op_is_nbc(op) ? op->name + 1 : op->name;
        CHECK_EQ_INT(mm_op_is_nbc(op), op->name[0] == 'i' && strcmp(op->kind, MM_OP_KIND_NBC) == 0);
        if (mm_op_is_nbc(op)) CHECK(mm_op_find(twin) != NULL);
        static const char *const rma_reducing[] = {"rma-acc", "rma-get-acc", "rma-fop"};
        CHECK_EQ_INT((op->flags & MM_OP_REDUCES) != 0,
                     in_list(twin, reducing, 6) || in_list(op->name, rma_reducing, 3));
        int master_worker = strncmp(op->name, "mw-", 3) == 0; /* the master is --root */
        int simple = strncmp(op->name, "simple-", 7) == 0;
        int pingpong = strncmp(op->name, "pingpong-", 9) == 0;
        int rma_one = strncmp(op->name, "rma-", 4) == 0 && contains(op->name, "-one"); /* the one: --root */
        CHECK_EQ_INT((op->flags & MM_OP_ROOTED) != 0, in_list(twin, rooted, 6) || master_worker || rma_one);
        /* one-sided data movement: on the pair, checked after the test, a mode to give */
        int rma_data = strncmp(op->name, "rma-", 4) == 0 && strncmp(op->name, "rma-win-", 8) != 0;
        /* IMB-RMA's contention patterns: every rank, rounds of --rma-burst, the one rank --root */
        int contention = rma_data && (contains(op->name, "-all") || contains(op->name, "-one"));
        CHECK_EQ_INT(mm_op_is_rma_contention(op), contention);
        CHECK_EQ_INT(mm_op_is_rma(op), strncmp(op->name, "rma-", 4) == 0);
        CHECK_EQ_INT(mm_op_uses_rma_sync(op), rma_data);
        /* checked after the test: one-sided data movement and the neighborhood collectives */
        CHECK_EQ_INT(op->verify != NULL, rma_data || mm_op_is_neighbor(op));
        CHECK_EQ_INT(mm_op_uses_rma_burst(op), rma_data && (contains(op->name, "-bw") || contention));
        int single = strcmp(op->name, "rma-fop") == 0 || strcmp(op->name, "rma-cas") == 0;
        CHECK_EQ_INT((op->flags & MM_OP_SIZE_UNUSED) != 0,
                     strcmp(twin, "barrier") == 0 || (simple && strcmp(op->name, "simple-attach") != 0) ||
                         single);
        CHECK_EQ_INT((op->flags & MM_OP_PAIR) != 0, pingpong || (rma_data && !contention));
        CHECK_EQ_INT((op->flags & MM_OP_ROUND_TRIP) != 0, pingpong);
        CHECK_EQ_INT((op->flags & MM_OP_NEEDS_TWO) != 0, master_worker || contention);
        CHECK(!(pingpong || master_worker) || (op->flags & MM_OP_FINISH_APART));
        CHECK_EQ_INT((op->flags & MM_OP_SIZE_IS_DURATION) != 0, strcmp(op->name, "delay") == 0);
        /* every sized op documents what its size is; v-variants document their displacements */
        if (!(op->flags & MM_OP_SIZE_UNUSED)) CHECK(contains(op->pattern, "size"));
        if (op->name[strlen(op->name) - 1] == 'v' && !strchr(op->name, '-'))
            CHECK(contains(op->pattern, "i*(count+1)"));
    }
    for (size_t i = 0; i < mm_ops_count; i++) {
        const mm_op *op = &mm_ops_table[i];
        if (!mm_op_is_nbc(op)) continue;
        const mm_op *twin = mm_op_find(op->name + 1);
        if (!twin) continue;
        /* the same buffers as the blocking twin, so the memory check holds for both */
        CHECK(memcmp(&op->buffers, &twin->buffers, sizeof op->buffers) == 0);
        CHECK_STR(op->constraints, twin->constraints);
        CHECK_EQ_INT(op->flags, twin->flags);
    }
    /* request-based operations only in passive-target epochs; the -bw rows' windows */
    char why[256];
    CHECK(mm_op_check_rma_sync(mm_op_find("rma-rput"), MM_RMA_FENCE, why, sizeof why) != 0);
    CHECK(contains(why, "passive"));
    CHECK(mm_op_check_rma_sync(mm_op_find("rma-rget"), MM_RMA_PSCW, why, sizeof why) != 0);
    CHECK(mm_op_check_rma_sync(mm_op_find("rma-rput"), MM_RMA_FLUSH, why, sizeof why) == 0);
    CHECK(mm_op_check_rma_sync(mm_op_find("rma-put"), MM_RMA_FENCE, why, sizeof why) == 0);
    CHECK(mm_op_rma_window_need(mm_op_find("rma-put-bw"), 1024, 4, 64) == 65536);
    CHECK(mm_op_rma_window_need(mm_op_find("rma-put"), 1024, 4, 64) == 1024);
    CHECK(mm_op_rma_window_need(mm_op_find("rma-cas"), 0, 8, 64) == 8);
    CHECK(mm_op_rma_window_need(mm_op_find("allreduce"), 1024, 4, 64) == 0);
    CHECK(mm_op_find("bogus") == NULL);
    CHECK(mm_op_find("Allreduce") == NULL);
    CHECK(mm_op_find(NULL) == NULL);
}

/* The mock-up rows (ops_mockups.c): each names an original of the table and calls of MPI, is
 * of kind mock-up, and has its original's size semantics: its flags (but --root, which only a
 * mock-up whose calls take a root uses), bound and size check. */
static void test_mockups(void) {
    size_t rows = 0;
    for (size_t i = 0; i < mm_ops_count; i++) {
        const mm_op *op = &mm_ops_table[i];
        const mm_mockup *m = mm_mockup_of(op);
        CHECK_EQ_INT(m != NULL, strcmp(op->kind, MM_OP_KIND_MOCKUP) == 0);
        if (!m) continue;
        rows++;
        const mm_op *of = mm_op_find(m->of);
        CHECK(of != NULL && m->calls[0] != NULL);
        if (!of) continue;
        CHECK(!mm_mockup_of(of));
        CHECK(contains(op->pattern, "mock-up of ") && contains(op->pattern, m->of));
        unsigned same = MM_OP_REDUCES | MM_OP_SIZE_UNUSED | MM_OP_SIZE_IS_DURATION | MM_OP_PAIR;
        CHECK_EQ_INT(op->flags & same, of->flags & same);
        CHECK(!(op->flags & MM_OP_ROOTED) || (of->flags & MM_OP_ROOTED));
        CHECK_EQ_INT(op->volume, of->volume);
        char why[256];
        CHECK_EQ_INT(mm_op_check_size(op, 10, 4, why, sizeof why), mm_op_check_size(of, 10, 4, why, sizeof why));
    }
    CHECK_EQ_INT(rows, mm_mockups_count);
    CHECK(mm_mockup_of(mm_op_find("allreduce")) == NULL);
    CHECK(mm_mockup_of(NULL) == NULL);
}

/* op refuses size (with type_size-byte elements), its reason containing needle. */
static void expect_size_refused(const mm_op *op, int64_t size, int type_size, const char *needle) {
    char why[256] = "";
    CHECK_EQ_INT(mm_op_check_size(op, size, type_size, why, sizeof why), MM_E_INPUT);
    if (!contains(why, needle)) fprintf(stderr, "reason '%s' lacks '%s'\n", why, needle);
    CHECK(contains(why, needle));
}

static void test_check_size(void) {
    const mm_op *allreduce = mm_op_find("allreduce");
    const mm_op *barrier = mm_op_find("barrier");
    const mm_op *delay = mm_op_find("delay");
    char why[256] = "";
    CHECK_EQ_INT(mm_op_check_size(allreduce, 10, 4, why, sizeof why), MM_E_INPUT);
    CHECK(contains(why, "size 10 is not a multiple of the datatype size (4 bytes)"));
    CHECK(contains(why, "8 or 12"));
    CHECK_EQ_INT(mm_op_check_size(allreduce, 8, 4, why, sizeof why), 0);
    CHECK_EQ_INT(mm_op_check_size(allreduce, 0, 8, why, sizeof why), 0);
    CHECK_EQ_INT(mm_op_check_size(allreduce, 7, 1, why, sizeof why), 0);
    expect_size_refused(allreduce, -8, 4, "negative");
    why[0] = '\0';
    CHECK_EQ_INT(mm_op_check_size(allreduce, 8, 0, why, sizeof why), MM_E_INPUT);
    CHECK(why[0] != '\0');
    /* count must fit MPI's int */
    CHECK_EQ_INT(mm_op_check_size(allreduce, (int64_t)INT_MAX * 8, 8, why, sizeof why), 0);
    expect_size_refused(allreduce, ((int64_t)INT_MAX + 1) * 8, 8, "too large");
    /* barrier ignores the size; delay takes any duration >= 0, whatever the datatype */
    CHECK_EQ_INT(mm_op_check_size(barrier, 10, 4, why, sizeof why), 0);
    CHECK_EQ_INT(mm_op_check_size(delay, 1001, 4, why, sizeof why), 0);
    CHECK_EQ_INT(mm_op_check_size(delay, 0, 4, why, sizeof why), 0);
    expect_size_refused(delay, -5, 4, "duration");
    /* a window or a buffer to attach is bytes of memory, whatever --datatype says (their
     * constraints ask for no multiple; these were refused with the default int) */
    CHECK_EQ_INT(mm_op_check_size(mm_op_find("rma-win-create"), 1001, 4, why, sizeof why), 0);
    CHECK_EQ_INT(mm_op_check_size(mm_op_find("rma-win-free"), 7, 8, why, sizeof why), 0);
    CHECK_EQ_INT(mm_op_check_size(mm_op_find("simple-attach"), 129, 4, why, sizeof why), 0);
    CHECK_EQ_INT(mm_op_check_size(mm_op_find("simple-attach"), INT_MAX, 4, why, sizeof why), 0);
    expect_size_refused(mm_op_find("simple-attach"), 1, 1, "MPI_BSEND_OVERHEAD");
    expect_size_refused(mm_op_find("rma-win-create"), -1, 4, "negative");
    expect_size_refused(mm_op_find("rma-put"), 1001, 4, "not a multiple of the datatype size");
    CHECK_EQ_INT(mm_op_check_size(NULL, 8, 4, why, sizeof why), MM_E_INPUT);
}

static void test_datatypes(void) {
    struct {
        const char *name;
        MPI_Datatype dt;
        int size;
    } expected[] = {{"byte", MPI_BYTE, 1},          {"char", MPI_CHAR, 1},
                    {"int", MPI_INT, sizeof(int)},  {"long", MPI_LONG, sizeof(long)},
                    {"float", MPI_FLOAT, sizeof(float)}, {"double", MPI_DOUBLE, sizeof(double)}};
    size_t n = sizeof expected / sizeof *expected;
    for (size_t i = 0; i < n; i++) {
        MPI_Datatype dt = MPI_DATATYPE_NULL;
        int size = -1;
        CHECK_EQ_INT(mm_datatype_lookup(expected[i].name, &dt, &size), 1);
        CHECK(dt == expected[i].dt);
        CHECK_EQ_INT(size, expected[i].size);
        CHECK(contains(mm_datatype_names(), expected[i].name));
    }
    size_t commas = 0;
    for (const char *p = mm_datatype_names(); *p; p++) commas += *p == ',';
    CHECK_EQ_INT(commas + 1, n);
    CHECK_EQ_INT(mm_datatype_lookup("bogus", NULL, NULL), 0);
    CHECK_EQ_INT(mm_datatype_lookup(NULL, NULL, NULL), 0);
    CHECK_EQ_INT(mm_datatype_lookup("int", NULL, NULL), 1);

    struct {
        const char *name;
        MPI_Op op;
    } ops[] = {{"sum", MPI_SUM},   {"max", MPI_MAX}, {"min", MPI_MIN}, {"prod", MPI_PROD},
               {"band", MPI_BAND}, {"bor", MPI_BOR}, {"bxor", MPI_BXOR}};
    size_t nops = sizeof ops / sizeof *ops;
    for (size_t i = 0; i < nops; i++) {
        MPI_Op op = MPI_OP_NULL;
        CHECK_EQ_INT(mm_reduce_op_lookup(ops[i].name, &op), 1);
        CHECK(op == ops[i].op);
        CHECK(contains(mm_reduce_op_names(), ops[i].name));
    }
    commas = 0;
    for (const char *p = mm_reduce_op_names(); *p; p++) commas += *p == ',';
    CHECK_EQ_INT(commas + 1, nops);
    CHECK_EQ_INT(mm_reduce_op_lookup("land", NULL), 0);
    CHECK_EQ_INT(mm_reduce_op_lookup(NULL, NULL), 0);
}

/* MPI-3.1 §5.9.2: which reduction is defined on which datatype. */
static void test_reduce_op_check(void) {
    static const char *const types[] = {"byte", "char", "int", "long", "float", "double"};
    static const char *const ops[] = {"sum", "max", "min", "prod", "band", "bor", "bxor"};
    /* rows: types; columns: ops */
    static const int allowed[6][7] = {
        {0, 0, 0, 0, 1, 1, 1}, /* byte: bitwise only */
        {0, 0, 0, 0, 0, 0, 0}, /* char: nothing */
        {1, 1, 1, 1, 1, 1, 1}, /* int */
        {1, 1, 1, 1, 1, 1, 1}, /* long */
        {1, 1, 1, 1, 0, 0, 0}, /* float: no bitwise */
        {1, 1, 1, 1, 0, 0, 0}, /* double */
    };
    for (int t = 0; t < 6; t++)
        for (int o = 0; o < 7; o++) {
            char why[256] = "";
            int rc = mm_reduce_op_check(ops[o], types[t], why, sizeof why);
            CHECK_EQ_INT(rc, allowed[t][o] ? 0 : MM_E_INPUT);
            if (rc != 0) CHECK(why[0] != '\0');
        }
    char why[256];
    mm_reduce_op_check("bor", "float", why, sizeof why);
    CHECK(contains(why, "'bor' is not defined for float"));
    mm_reduce_op_check("sum", "byte", why, sizeof why);
    CHECK(contains(why, "'sum' is not defined for byte"));
    mm_reduce_op_check("max", "char", why, sizeof why);
    CHECK(contains(why, "no reduction on char"));
    CHECK_EQ_INT(mm_reduce_op_check("bogus", "int", why, sizeof why), MM_E_INPUT);
    CHECK(contains(why, "unknown reduction op 'bogus'"));
    CHECK_EQ_INT(mm_reduce_op_check("sum", "bogus", why, sizeof why), MM_E_INPUT);
    CHECK(contains(why, "unknown datatype 'bogus'"));
}

static void test_print_list(void) {
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (!f) return;
    mm_print_ops_list(f);
    rewind(f);
    char line[1024];
    size_t n = 0;
    while (fgets(line, sizeof line, f)) {
        CHECK(n < mm_ops_count);
        if (n >= mm_ops_count) break;
        const char *name = mm_ops_table[n].name;
        CHECK(strncmp(line, name, strlen(name)) == 0 && line[strlen(name)] == ' ');
        CHECK(contains(line, mm_ops_table[n].pattern));
        CHECK(contains(line, mm_ops_table[n].constraints));
        n++;
    }
    CHECK_EQ_INT(n, mm_ops_count);
    fclose(f);
}

static void test_setup_layouts(void) {
    /* reduce_scatter: 10 elements over 4 ranks -> 3,3,2,2 (differ by at most 1, sum 10) */
    mm_op_args a = mm_test_op_args(10 * sizeof(int), 1, 4, 0);
    const mm_op *op = mm_op_find("reduce_scatter");
    CHECK_EQ_INT(op->setup(&a), 0);
    CHECK_EQ_INT(a.count, 10);
    CHECK(a.recvcounts && a.recvcounts[0] == 3 && a.recvcounts[1] == 3 && a.recvcounts[2] == 2 &&
          a.recvcounts[3] == 2);
    CHECK(a.sendbuf && a.recvbuf);
    /* the send pattern: +-1 for integers */
    const int *v = a.sendbuf;
    int bad = 0;
    for (int i = 0; i < a.count; i++) bad += v[i] != 1 && v[i] != -1;
    CHECK_EQ_INT(bad, 0);
    op->teardown(&a);
    CHECK(!a.sendbuf && !a.recvbuf && !a.recvcounts);

    /* v-variants: counts = count, displacements i*(count+1) */
    a = mm_test_op_args(3 * sizeof(int), 2, 4, 2);
    op = mm_op_find("alltoallv");
    CHECK_EQ_INT(op->setup(&a), 0);
    CHECK_EQ_INT(a.count, 3);
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(a.sendcounts[i], 3);
        CHECK_EQ_INT(a.recvcounts[i], 3);
        CHECK_EQ_INT(a.sdispls[i], 4 * i);
        CHECK_EQ_INT(a.rdispls[i], 4 * i);
    }
    op->teardown(&a);

    /* rooted: gatherv's receive side exists only at root */
    op = mm_op_find("gatherv");
    a = mm_test_op_args(8, 1, 4, 2);
    CHECK_EQ_INT(op->setup(&a), 0);
    CHECK(a.sendbuf && !a.recvbuf && !a.recvcounts && !a.rdispls);
    op->teardown(&a);
    a = mm_test_op_args(8, 2, 4, 2);
    CHECK_EQ_INT(op->setup(&a), 0);
    CHECK(a.sendbuf && a.recvbuf && a.recvcounts && a.rdispls && a.rdispls[3] == 9);
    op->teardown(&a);

    /* size 0 is count 0 with valid (non-NULL) buffers */
    a = mm_test_op_args(0, 0, 2, 0);
    op = mm_op_find("allgather");
    CHECK_EQ_INT(op->setup(&a), 0);
    CHECK_EQ_INT(a.count, 0);
    CHECK(a.sendbuf && a.recvbuf && a.sendbuf != a.recvbuf);
    op->teardown(&a);

    /* barrier ignores the size; invalid arguments are refused by every setup */
    a = mm_test_op_args(12345, 0, 2, 0);
    CHECK_EQ_INT(mm_op_find("barrier")->setup(&a), 0);
    CHECK_EQ_INT(a.count, 0);
    for (size_t i = 0; i < mm_ops_count; i++) {
        if (mm_ops_table[i].flags & (MM_OP_SIZE_UNUSED | MM_OP_SIZE_IS_DURATION)) continue;
        /* not a multiple of sizeof(int); bytes of memory (a window, a buffer to attach) take any
         * whole number of bytes, so theirs is a negative size */
        int memory = (mm_ops_table[i].flags & MM_OP_SIZE_IS_MEMORY) != 0;
        mm_op_args bad_size = mm_test_op_args(memory ? -10 : 10, 0, 2, 0);
        CHECK_EQ_INT(mm_ops_table[i].setup(&bad_size), -1);
        mm_op_args bad_root = mm_test_op_args(8, 0, 2, 2);
        CHECK_EQ_INT(mm_ops_table[i].setup(&bad_root), -1);
        CHECK(!bad_size.sendbuf && !bad_root.sendbuf);
    }
}

/* mm_op_buffer_bytes (the memory check before a launch) says what setup really allocates:
 * for every op, on the root and elsewhere, the declared bytes are at most what was allocated,
 * and short of it only by what the declaration leaves out (reduce_scatter's size/nprocs share,
 * the v-variants' gaps) and malloc's rounding — far less than one block of `size` bytes. */
static void test_buffer_bytes(void) {
    const int64_t size = 65536;
    const int nprocs = 4;
    for (size_t i = 0; i < mm_ops_count; i++) {
        const mm_op *op = &mm_ops_table[i];
        for (int rank = 0; rank < 2; rank++) { /* rank 0 is the root */
            /* the Bsend rows attach a buffer (MPI_Pack_size, MPI_Buffer_attach): they need
             * MPI_Init; their buffers are those of the rows without Bsend */
            if (strstr(op->name, "bsend")) continue;
            /* the one-sided, neighborhood and persistent rows make a window, a Cartesian
             * communicator or a request in setup: they need MPI_Init too (their launches are
             * checked in c/tests/mpi/test_rma.py and test_persistent_neighbor.py) */
            if (mm_op_is_rma(op) || mm_op_is_neighbor(op) || strcmp(op->kind, MM_OP_KIND_PERSISTENT) == 0)
                continue;
            mm_op_args a = mm_test_op_args(size, rank, nprocs, 0);
            a.pair[0] = 0;
            a.pair[1] = 1;
            mm_timer t = {0};
            a.timer = &t; /* delay's setup wants a timer; it is not read */
            a.workpieces = mm_op_uses_workpieces(op) ? 4 : 0; /* the test's --workpieces value */
            mm_nbc nbc = {0};
            if (mm_op_is_nbc(op)) {
                CHECK_EQ_INT(op->setup(&a), -1); /* without the launch's state it cannot run */
                a.nbc = &nbc;
            }
            CHECK_EQ_INT(op->setup(&a), 0);
            CHECK(!mm_op_is_nbc(op) || nbc.post != NULL);
            int64_t allocated = (int64_t)(malloc_usable_size(a.sendbuf) + malloc_usable_size(a.recvbuf));
            int64_t declared = mm_op_buffer_bytes(op, size, nprocs, rank == 0);
            int ok = declared <= allocated && allocated <= declared + size / nprocs + 2 * 4096 + 64;
            if (op->flags & (MM_OP_SIZE_UNUSED | MM_OP_SIZE_IS_DURATION)) ok = declared == 0;
            /* master-worker: the declaration (2 blocks everywhere, nprocs more on the master)
             * overstates the master's by the 2 blocks it does not use: conservative */
            if (strncmp(op->name, "mw-", 3) == 0 && rank == 0)
                ok = declared >= allocated && declared <= allocated + 2 * size + 64;
            /* a mock-up's declaration counts its temporaries too, which are not in sendbuf and
             * recvbuf: it may exceed them, by less than nprocs + 1 blocks */
            if (mm_mockup_of(op))
                ok = declared + size / nprocs + 2 * 4096 + 64 >= allocated && declared <= allocated + (nprocs + 1) * size;
            CHECK(ok);
            if (!ok)
                fprintf(stderr, "  %s rank %d: declared %lld, allocated %lld\n", op->name, rank,
                        (long long)declared, (long long)allocated);
            op->teardown(&a);
        }
    }
    const mm_op *alltoall = mm_op_find("alltoall");
    CHECK_EQ_INT(mm_op_buffer_bytes(alltoall, 1000, 8, 0), 16000);
    CHECK_EQ_INT(mm_op_buffer_bytes(alltoall, 0, 8, 0), 0);
    CHECK_EQ_INT(mm_op_buffer_bytes(mm_op_find("gather"), 1000, 8, 1), 9000);
    CHECK_EQ_INT(mm_op_buffer_bytes(mm_op_find("gather"), 1000, 8, 0), 1000);
    CHECK_EQ_INT(mm_op_buffer_bytes(alltoall, INT64_MAX / 2, 1 << 20, 0), INT64_MAX); /* saturates */
}

/* mm_op_setup_bytes (the memory check before a launch) for the rows whose buffers the options
 * multiply: what ops_rma.c, ops_rma_contention.c and ops_neighbor.c allocate. */
static void test_setup_bytes(void) {
    mm_config cfg;
    mm_config_defaults(&cfg);
    snprintf(cfg.measure.datatype, sizeof cfg.measure.datatype, "int");
    cfg.rma.burst = 64;
    /* a pair's -bw row: send, compare, result, 64 blocks read into, the check's block, and the
     * window of 64 blocks; rma-put takes one operation per epoch whatever the burst */
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("rma-put-bw"), &cfg, 1024, 2, 0, 0), (3 + 64 + 1) * 1024 + 64 * 1024);
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("rma-put"), &cfg, 1024, 2, 0, 0), (3 + 1 + 1) * 1024 + 1024);
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("rma-acc"), &cfg, 1024, 2, 0, 0), (3 + 1 + 5) * 1024 + 1024);
    cfg.rma.window_bytes = 1 << 20; /* a larger window when given */
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("rma-put"), &cfg, 1024, 2, 0, 0), 5 * 1024 + (1 << 20));
    cfg.rma.window_bytes = 0;
    /* contention: a window of nprocs x burst blocks, the gets as much again to read into */
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("rma-all-put-all"), &cfg, 1024, 4, 0, 0), 2 * 1024 + 4 * 64 * 1024);
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("rma-all-get-all"), &cfg, 1024, 4, 0, 0), 2 * 1024 + 2 * 4 * 64 * 1024);
    /* neighbours: 2 x ndims of the torus, in and out (allgather sends one block), + an element each */
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("neighbor_alltoall"), &cfg, 1024, 4, 0, 0), 8 * 1024 + 8);
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("neighbor_allgather"), &cfg, 1024, 4, 0, 0), 5 * 1024 + 8);
    cfg.topo.cart_ndims = 8;
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("neighbor_alltoall"), &cfg, 1024, 4, 0, 0), 32 * 1024 + 8);
    /* alltoallv: one element of gap per block */
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("neighbor_alltoallv"), &cfg, 1024, 4, 0, 0), 32 * 1028 + 8);
    /* the other rows: the table's declaration */
    CHECK_EQ_INT(mm_op_setup_bytes(mm_op_find("alltoall"), &cfg, 1000, 8, 0, 0), 16000);
}

static void test_volume(void) {
    const struct { const char *op; const char *formula; double on4, on1; } cases[] = {
        {"allreduce", "2(p-1)/p x size", 1.5, 0.0}, {"bcast", "size", 1.0, 0.0},
        {"alltoall", "(p-1) x size", 3.0, 0.0},     {"reduce", "(p-1)/p x size", 0.75, 0.0},
        {"barrier", "0", 0.0, 0.0},                 {"allgather", "(p-1) x size", 3.0, 0.0},
        {"pingpong-send-recv", "size", 1.0, 0.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const mm_op *op = mm_op_find(cases[i].op);
        CHECK(op != NULL);
        CHECK_STR(mm_op_volume_formula(op), cases[i].formula);
        CHECK(mm_op_volume_factor(op, 4) == cases[i].on4);
        CHECK(mm_op_volume_factor(op, 1) == cases[i].on1);
    }
    const char *none[] = {"iallreduce", "mw-send", "simple-empty", "delay"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++) {
        CHECK(mm_op_volume_formula(mm_op_find(none[i])) == NULL);
        CHECK(mm_op_volume_factor(mm_op_find(none[i]), 4) < 0);
    }
    /* every blocking collective states a bound */
    for (size_t i = 0; i < mm_ops_count; i++) {
        const mm_op *op = &mm_ops_table[i];
        int blocking = strcmp(op->kind, MM_OP_KIND_COLLECTIVE) == 0 || strcmp(op->kind, MM_OP_KIND_ROOTED) == 0;
        if (blocking) CHECK(mm_op_volume_formula(op) != NULL);
    }
}

int main(void) {
    test_table();
    test_mockups();
    test_volume();
    test_check_size();
    test_datatypes();
    test_reduce_op_check();
    test_print_list();
    test_setup_layouts();
    test_buffer_bytes();
    test_setup_bytes();
    return mm_check_summary("test_ops");
}
