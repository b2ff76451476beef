/* SPDX-License-Identifier: BSD-3-Clause */
/* refine.c — --sizes auto: SKaMPI's adaptive refinement of message sizes (Reussner et al. 1998
 * §3.2), one round at a time, inside one launch.
 *
 * What: the launch first measures the geometric grid (config.sizes, in the shuffled plan). Then,
 * per round, rank 0 takes for every operation the median run time of each size measured so far
 * (decide.c: the valid repetitions, as the analysis sees them), asks mm_refine_pick (adaptive.c)
 * for the size at the geometric middle of the segment whose linear interpolation is worst, and
 * adds one test per operation that still needs one; the new tests are broadcast, appended to the
 * plan in an order shuffled with the seed (Hunold & Carpen-Amarie 2016, Alg. 2), and run like any
 * other. An operation is done once every segment's error is below --sizes-precision (or no
 * segment holds a size in between) or once --sizes-budget sizes were added for it.
 * Why: SKaMPI keeps a priority queue and splits the worst segment until the error bound or the
 * measurement budget; one split per operation and round keeps the operations interleaved, so that
 * a drift of the machine during the refinement does not line up with one operation.
 * Cost per round: one broadcast of the count and one of the new tests; rank 0 sorts each
 * operation's points (O(s log s) for s sizes). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "launch_internal.h"
#include "mm_error.h"

typedef struct mm__size_ctx {
    const mm_op *op;
    int type_size;
    const mm__launch_state *st;
} mm__size_ctx;

/* A size the operation accepts and the launch has not tested yet: a size whose test gave no
 * valid repetition is not a point of the curve, but it is not measured twice in one launch
 * (the analysis takes one test per operation and size and launch). */
static int mm__size_ok(int64_t size, const void *arg) {
    const mm__size_ctx *c = arg;
    char why[256];
    for (int i = 0; i < c->st->ntests; i++)
        if (c->st->tests[i].op == c->op && c->st->tests[i].size == size) return 0;
    return mm_op_check_size(c->op, size, c->type_size, why, sizeof why) == 0;
}

typedef struct mm__point {
    int64_t size;
    double time_ns;
} mm__point;

static int mm__cmp_point(const void *x, const void *y) {
    int64_t a = ((const mm__point *)x)->size, b = ((const mm__point *)y)->size;
    return (a > b) - (a < b);
}

/* Rank 0: the size to add for refine entry r, or -1 (and the entry's verdict updated). */
static int64_t mm__pick_for(mm__launch_state *st, mm_refine_op *r, mm__point *pts, int64_t *sizes,
                            double *times) {
    int n = 0;
    for (int i = 0; i < st->ntests; i++) {
        const mm_test *t = &st->tests[i];
        if (t->op == r->op && t->status == MM_TEST_COMPLETE && isfinite(t->median_ns) && t->median_ns > 0)
            pts[n++] = (mm__point){t->size, t->median_ns};
    }
    qsort(pts, (size_t)n, sizeof *pts, mm__cmp_point);
    for (int i = 0; i < n; i++) {
        sizes[i] = pts[i].size;
        times[i] = pts[i].time_ns;
    }
    int type_size = 1;
    MPI_Datatype dt;
    mm_datatype_lookup(st->cfg->measure.datatype, &dt, &type_size);
    mm__size_ctx ctx = {r->op, type_size, st};
    int64_t at = -1;
    double worst = 0.0;
    int seg = mm_refine_pick(sizes, times, n, st->cfg->adaptive.sizes_precision, mm__size_ok, &ctx, &at, &worst);
    r->rounds++;
    r->max_error = worst;
    if (seg < 0) {
        r->stopped_by = MM_STOP_PRECISION;
        return -1;
    }
    if (r->nadded >= st->cfg->adaptive.sizes_budget) {
        r->stopped_by = MM_STOP_BUDGET;
        return -1;
    }
    r->nadded++;
    return at;
}

/* Rank 0: the operations to refine, in --ops order (those that take a size). */
static void mm__refine_init(mm__launch_state *st) {
    if (st->nrefine > 0) return;
    for (int i = 0; i < st->cfg->nops; i++) {
        const mm_op *op = mm_op_find(st->cfg->ops[i]);
        if (!op || (op->flags & MM_OP_SIZE_UNUSED)) continue;
        memset(&st->refine[st->nrefine], 0, sizeof st->refine[0]);
        st->refine[st->nrefine].op = op;
        st->refine[st->nrefine].max_error = NAN;
        st->nrefine++;
    }
}

int mm__refine_round(mm__launch_state *st, int round) {
    int64_t picked[MM_MAX_OPS];
    int which[MM_MAX_OPS];
    int count = 0;
    if (st->rank == 0) {
        mm__refine_init(st);
        mm__point *pts = malloc((size_t)st->ntests * sizeof *pts);
        int64_t *sizes = malloc((size_t)st->ntests * sizeof *sizes);
        double *times = malloc((size_t)st->ntests * sizeof *times);
        for (int r = 0; pts && sizes && times && r < st->nrefine; r++) {
            mm_refine_op *ref = &st->refine[r];
            if (ref->stopped_by != MM_STOP_CONTINUE) continue; /* done: nothing new about it */
            int64_t at = mm__pick_for(st, ref, pts, sizes, times);
            if (at >= 0 && st->ntests + count < st->max_tests) {
                picked[count] = at;
                which[count] = r;
                count++;
            }
        }
        free(pts);
        free(sizes);
        free(times);
    }
    if (MM_MPI(&st->err, MPI_Bcast(&count, 1, MPI_INT, 0, st->comm)) != MPI_SUCCESS) return MM_E_FAILED;
    if (count == 0) return 0;
    int op_index[MM_MAX_OPS];
    for (int k = 0; st->rank == 0 && k < count; k++) {
        for (int i = 0; i < st->cfg->nops; i++)
            if (strcmp(st->cfg->ops[i], st->refine[which[k]].op->name) == 0) op_index[k] = i;
    }
    if (MM_MPI(&st->err, MPI_Bcast(op_index, count, MPI_INT, 0, st->comm)) != MPI_SUCCESS ||
        MM_MPI(&st->err, MPI_Bcast(picked, count, MPI_INT64_T, 0, st->comm)) != MPI_SUCCESS)
        return MM_E_FAILED;
    mm_test *added = &st->tests[st->ntests];
    for (int k = 0; k < count; k++) {
        const mm_op *op = mm_op_find(st->cfg->ops[op_index[k]]);
        /* one root and one work-piece count: --sizes auto with several is refused
         * (mm_config_check_nprocs, parse_space.c) */
        int root = (op->flags & MM_OP_ROOTED) ? (st->cfg->plan.roots.all ? 0 : st->cfg->plan.roots.v[0]) : -1;
        int pieces = mm_op_uses_workpieces(op) ? st->cfg->plan.workpieces.v[0] : 0;
        mm_test_init(&added[k], st->cfg, op, picked[k], st->nprocs, root, pieces);
        added[k].size_added = 1;
        added[k].refine_round = round;
        added[k].median_ns = NAN;
    }
    /* shuffled within the round, like the plan (or ascending); indices continue the plan's */
    if (st->cfg->plan.order_ascending)
        mm_plan_ascending(added, count);
    else
        mm_plan_shuffle(added, count, st->cfg->plan.seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)round));
    for (int k = 0; k < count; k++) added[k].index = st->ntests + k;
    st->ntests += count;
    return count;
}
