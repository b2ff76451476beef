/* SPDX-License-Identifier: BSD-3-Clause */
/* plan.c — the tests of a launch (operations x sizes, and the other dimensions: communicator
 * sizes, roots, work pieces) in a seeded random order
 * (Hunold & Carpen-Amarie 2016, Algorithm 2: the order is shuffled within every call to mpirun,
 * so that slow drifts of the machine do not line up with one operation or size), or, for the
 * quick table (--order ascending), each operation's sizes from the smallest, as OSU prints them. */
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_prng.h"

/* Uniform integer in [0, n) without modulo bias (rejection). */
static uint64_t mm__rand_below(uint64_t *state, uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do r = mm_rand_next(state);
    while (r >= limit);
    return r % n;
}

/* How many roots a test of op has on nprocs ranks: 1 for an op without a root. */
static int mm__nroots(const mm_config *cfg, const mm_op *op, int nprocs) {
    if (!(op->flags & MM_OP_ROOTED)) return 1;
    return cfg->plan.roots.all ? nprocs : cfg->plan.roots.n;
}

/* How many --workpieces values a test of op has: 1 for an op without them. */
static int mm__npieces(const mm_config *cfg, const mm_op *op) {
    return mm_op_uses_workpieces(op) ? cfg->plan.workpieces.n : 1;
}

int mm_plan_size(const mm_config *cfg, int nprocs) {
    int comm_sizes[MM_MAX_LIST], ncomms = mm_config_comm_sizes(cfg, nprocs, comm_sizes);
    int n = 0;
    for (int i = 0; i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (!op) continue;
        for (int c = 0; c < ncomms; c++)
            n += ((op->flags & MM_OP_SIZE_UNUSED) ? 1 : cfg->nsizes) * mm__nroots(cfg, op, comm_sizes[c]) *
                 mm__npieces(cfg, op);
    }
    return n;
}

int mm_plan_capacity(const mm_config *cfg, int nprocs) {
    int n = mm_plan_size(cfg, nprocs);
    for (int i = 0; cfg->adaptive.sizes_auto && i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (op && !(op->flags & MM_OP_SIZE_UNUSED)) n += cfg->adaptive.sizes_budget;
    }
    return n;
}

void mm_test_init(mm_test *t, const mm_config *cfg, const mm_op *op, int64_t size, int nprocs, int root,
                  int workpieces) {
    memset(t, 0, sizeof *t);
    t->op = op;
    t->nbc = mm_op_is_nbc(op);
    t->size = (op->flags & MM_OP_SIZE_UNUSED) ? 0 : size;
    t->nprocs = nprocs;
    t->root = root;
    t->workpieces = workpieces;
    /* on the test's own communicator: a sub-communicator of --nprocs has fewer ranks */
    t->bound_bytes_per_size = mm_op_bytes_per_size(op, cfg, nprocs);
    t->overhead_ns = -1.0;
    t->status = MM_TEST_PENDING;
    t->nrep_asked = cfg->nrep;
}

int mm_plan_build(const mm_config *cfg, int nprocs, mm_test *tests, int max_tests) {
    int comm_sizes[MM_MAX_LIST], ncomms = mm_config_comm_sizes(cfg, nprocs, comm_sizes);
    int n = 0;
    for (int i = 0; i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (!op) continue; /* validated before: cannot happen */
        int nsizes = (op->flags & MM_OP_SIZE_UNUSED) ? 1 : cfg->nsizes;
        int rooted = (op->flags & MM_OP_ROOTED) != 0;
        for (int c = 0; c < ncomms; c++) {
            const int comm_size = comm_sizes[c];
            int nroots = mm__nroots(cfg, op, comm_size);
            for (int r = 0; r < nroots; r++) {
                int root = !rooted ? -1 : cfg->plan.roots.all ? r : cfg->plan.roots.v[r];
                for (int w = 0; w < mm__npieces(cfg, op); w++) {
                    int pieces = mm_op_uses_workpieces(op) ? cfg->plan.workpieces.v[w] : 0;
                    for (int s = 0; s < nsizes && n < max_tests; s++, n++)
                        mm_test_init(&tests[n], cfg, op, cfg->sizes[s], comm_size, root, pieces);
                }
            }
        }
    }
    return n;
}

void mm_plan_shuffle(mm_test *tests, int n, uint64_t seed) {
    uint64_t state = seed;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        int j = (int)mm__rand_below(&state, (uint64_t)i + 1);
        mm_test tmp = tests[i];
        tests[i] = tests[j];
        tests[j] = tmp;
    }
    for (int i = 0; i < n; i++) tests[i].index = i;
}

typedef struct {
    int op_first; /* position of the first test of its operation in the plan */
    int64_t size;
    int position; /* in the plan: keeps the sort stable */
} mm__order_key;

static int mm__order_compare(const void *a, const void *b) {
    const mm__order_key *x = a, *y = b;
    if (x->op_first != y->op_first) return x->op_first < y->op_first ? -1 : 1;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    return (x->position > y->position) - (x->position < y->position);
}

void mm_plan_ascending(mm_test *tests, int n) {
    mm__order_key *keys = n > 0 ? malloc((size_t)n * sizeof *keys) : NULL;
    mm_test *copy = n > 0 ? malloc((size_t)n * sizeof *copy) : NULL;
    if (keys && copy) {
        for (int i = 0; i < n; i++) {
            int first = i > 0 && tests[i - 1].op == tests[i].op ? keys[i - 1].op_first : i;
            keys[i] = (mm__order_key){first, tests[i].size, i};
        }
        qsort(keys, (size_t)n, sizeof *keys, mm__order_compare);
        memcpy(copy, tests, (size_t)n * sizeof *copy);
        for (int i = 0; i < n; i++) tests[i] = copy[keys[i].position];
    }
    free(keys);
    free(copy);
    for (int i = 0; i < n; i++) tests[i].index = i;
}
