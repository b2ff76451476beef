/* SPDX-License-Identifier: BSD-3-Clause */
/* test_plan.c — the plan: operations x sizes, shuffled deterministically by the seed. */
#include "mm_bench.h"
#include "mm_prng.h"
#include "mm_check.h"

static mm_config cfg;

static int build(mm_test *t, uint64_t seed) {
    int n = mm_plan_build(&cfg, 4, t, 64);
    mm_plan_shuffle(t, n, seed);
    return n;
}

int main(void) {
    mm_config_defaults(&cfg);
    const char *ops[] = {"allreduce", "bcast", "barrier", "alltoall"};
    cfg.nops = 4;
    for (int i = 0; i < 4; i++) snprintf(cfg.ops[i], MM_NAME_LEN, "%s", ops[i]);
    cfg.nsizes = 3;
    cfg.sizes[0] = 8;
    cfg.sizes[1] = 64;
    cfg.sizes[2] = 512;

    mm_test a[64], b[64], c[64];
    int n = build(a, 1234);
    CHECK_EQ_INT(n, 3 * 3 + 1); /* barrier: one test at size 0 */
    CHECK_EQ_INT(mm_plan_size(&cfg, 4), n); /* what a launch allocates for the plan */
    CHECK_EQ_INT(mm_plan_capacity(&cfg, 4), n); /* fixed sizes: nothing is added */
    cfg.adaptive.sizes_auto = 1, cfg.adaptive.sizes_budget = 5;
    CHECK_EQ_INT(mm_plan_capacity(&cfg, 4), n + 3 * 5); /* --sizes auto: 5 more per sized op, not barrier */
    cfg.adaptive.sizes_auto = 0;
    CHECK_EQ_INT(build(b, 1234), n);
    build(c, 1235);
    int same = 1, same_other = 1;
    for (int i = 0; i < n; i++) {
        CHECK_EQ_INT(a[i].index, i);
        same &= a[i].op == b[i].op && a[i].size == b[i].size;
        same_other &= a[i].op == c[i].op && a[i].size == c[i].size;
    }
    CHECK(same);       /* deterministic for a seed */
    CHECK(!same_other); /* another seed, another order (true for these two seeds) */

    /* a permutation: every (op, size) exactly once */
    for (int o = 0; o < 4; o++) {
        int nsizes = strcmp(ops[o], "barrier") == 0 ? 1 : 3;
        for (int s = 0; s < nsizes; s++) {
            int64_t size = strcmp(ops[o], "barrier") == 0 ? 0 : cfg.sizes[s];
            int count = 0;
            for (int i = 0; i < n; i++) count += strcmp(a[i].op->name, ops[o]) == 0 && a[i].size == size;
            CHECK_EQ_INT(count, 1);
        }
    }
    /* shuffling is not the identity for most seeds: count positions moved over seeds */
    int moved = 0;
    for (uint64_t seed = 0; seed < 20; seed++) {
        build(c, seed);
        mm_test plain[64];
        mm_plan_build(&cfg, 4, plain, 64);
        for (int i = 0; i < n; i++) moved += c[i].op != plain[i].op || c[i].size != plain[i].size;
    }
    CHECK(moved > 20 * n / 2);

    /* --root: one test per root for the rooted op (bcast), root -1 for the others; tests carry
     * the communicator size */
    for (int i = 0; i < n; i++) {
        CHECK_EQ_INT(a[i].nprocs, 4);
        CHECK_EQ_INT(a[i].root, strcmp(a[i].op->name, "bcast") == 0 ? 0 : -1);
    }
    cfg.plan.roots.all = 1, cfg.plan.roots.n = 0; /* --root all on 4 ranks */
    CHECK_EQ_INT(mm_plan_size(&cfg, 4), n + 3 * 3);
    mm_test r[64];
    int nr = mm_plan_build(&cfg, 4, r, 64);
    CHECK_EQ_INT(nr, n + 3 * 3);
    int per_root[4] = {0};
    for (int i = 0; i < nr; i++)
        if (strcmp(r[i].op->name, "bcast") == 0 && r[i].root >= 0 && r[i].root < 4) per_root[r[i].root]++;
    for (int k = 0; k < 4; k++) CHECK_EQ_INT(per_root[k], 3); /* every size at every root */
    cfg.plan.roots.all = 0, cfg.plan.roots.n = 2, cfg.plan.roots.v[0] = 3, cfg.plan.roots.v[1] = 1; /* --root 3,1 */
    CHECK_EQ_INT(mm_plan_size(&cfg, 4), n + 3);
    nr = mm_plan_build(&cfg, 4, r, 64);
    int roots_seen = 0;
    for (int i = 0; i < nr; i++) roots_seen |= r[i].root >= 0 ? 1 << r[i].root : 0;
    CHECK_EQ_INT(roots_seen, (1 << 3) | (1 << 1));
    cfg.plan.roots.n = 1, cfg.plan.roots.v[0] = 0;

    /* --nprocs 2,4 with --root all: every (op, size) per communicator size, bcast at each of its
     * ranks: 2 + 4 roots x 3 sizes, the others twice */
    cfg.plan.comm_sizes.n = 2, cfg.plan.comm_sizes.v[0] = 2, cfg.plan.comm_sizes.v[1] = 4;
    cfg.plan.roots.all = 1, cfg.plan.roots.n = 0;
    int expect = (2 + 4) * 3 + 2 * (3 + 3 + 1);
    CHECK_EQ_INT(mm_plan_size(&cfg, 4), expect);
    nr = mm_plan_build(&cfg, 4, r, 64);
    CHECK_EQ_INT(nr, expect);
    int on[5] = {0}, bad_root = 0;
    for (int i = 0; i < nr; i++) {
        if (r[i].nprocs == 2 || r[i].nprocs == 4) on[r[i].nprocs]++;
        bad_root |= r[i].root >= r[i].nprocs; /* a root is a rank of its communicator */
    }
    CHECK_EQ_INT(on[2], 2 * 3 + 7);
    CHECK_EQ_INT(on[4], 4 * 3 + 7);
    CHECK(!bad_root);
    /* the bound's data term per test is the one of the test's communicator, not the launch's:
     * allreduce 2(p-1)/p (1 on 2 ranks, 1.5 on 4), alltoall p-1, bcast 1, barrier 0 */
    for (int i = 0; i < nr; i++) {
        double p = r[i].nprocs, want = strcmp(r[i].op->name, "allreduce") == 0  ? 2.0 * (p - 1) / p
                                       : strcmp(r[i].op->name, "alltoall") == 0 ? p - 1
                                       : strcmp(r[i].op->name, "bcast") == 0    ? 1.0
                                                                                : 0.0;
        CHECK(r[i].bound_bytes_per_size == want);
        CHECK(r[i].overhead_ns < 0); /* measured only with --subtract-overhead, by the launch */
        CHECK_EQ_INT(r[i].workpieces, 0);
    }
    cfg.plan.comm_sizes.n = 0, cfg.plan.roots.all = 0, cfg.plan.roots.n = 1, cfg.plan.roots.v[0] = 0;

    /* --workpieces 4,16,64: one test per value for mw-workpieces (and size), 0 for the others */
    CHECK_EQ_INT(cfg.plan.workpieces.n, 1); /* the default: one value */
    CHECK_EQ_INT(cfg.plan.workpieces.v[0], 16);
    snprintf(cfg.ops[4], MM_NAME_LEN, "mw-workpieces");
    cfg.nops = 5;
    cfg.plan.workpieces.n = 3, cfg.plan.workpieces.v[0] = 4, cfg.plan.workpieces.v[1] = 16, cfg.plan.workpieces.v[2] = 64;
    CHECK_EQ_INT(mm_plan_size(&cfg, 4), n + 3 * 3);
    nr = mm_plan_build(&cfg, 4, r, 64);
    CHECK_EQ_INT(nr, n + 3 * 3);
    int pieces_seen[65] = {0};
    for (int i = 0; i < nr; i++) {
        int mw = strcmp(r[i].op->name, "mw-workpieces") == 0;
        CHECK(mw ? r[i].workpieces > 0 : r[i].workpieces == 0);
        if (mw && r[i].workpieces <= 64) pieces_seen[r[i].workpieces]++;
        if (mw) CHECK(r[i].bound_bytes_per_size < 0); /* no bound stated for master-worker */
    }
    CHECK_EQ_INT(pieces_seen[4], 3);
    CHECK_EQ_INT(pieces_seen[16], 3);
    CHECK_EQ_INT(pieces_seen[64], 3);
    cfg.nops = 4, cfg.plan.workpieces.n = 1, cfg.plan.workpieces.v[0] = 16;

    /* --order ascending (the quick table): each operation's sizes from the smallest, the
     * operations in the order of --ops, whatever the order of --sizes; indices follow */
    {
        mm_config q;
        mm_config_defaults(&q);
        q.nops = 3;
        snprintf(q.ops[0], MM_NAME_LEN, "bcast");
        snprintf(q.ops[1], MM_NAME_LEN, "barrier");
        snprintf(q.ops[2], MM_NAME_LEN, "allreduce");
        q.nsizes = 3, q.sizes[0] = 512, q.sizes[1] = 8, q.sizes[2] = 64;
        q.plan.roots.all = 1, q.plan.roots.n = 0; /* bcast at roots 0 and 1 of 2 ranks */
        mm_test t[16];
        int nt = mm_plan_build(&q, 2, t, 16);
        CHECK_EQ_INT(nt, 3 * 2 + 1 + 3);
        mm_plan_ascending(t, nt);
        static const char *const want_op[] = {"bcast", "bcast", "bcast", "bcast", "bcast", "bcast",
                                              "barrier", "allreduce", "allreduce", "allreduce"};
        static const int64_t want_size[] = {8, 8, 64, 64, 512, 512, 0, 8, 64, 512};
        for (int i = 0; i < nt; i++) {
            CHECK(strcmp(t[i].op->name, want_op[i]) == 0);
            CHECK_EQ_INT(t[i].size, want_size[i]);
            CHECK_EQ_INT(t[i].index, i);
        }
        CHECK(t[0].root == 0 && t[1].root == 1); /* stable: the plan's order within a size */
    }

    /* the PRNG: known first value of splitmix64 for state 0 */
    uint64_t st = 0;
    CHECK(mm_rand_next(&st) == 0xE220A8397B1DCDAFULL);
    return mm_check_summary("test_plan");
}
