/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_test.h — the record of one test of a launch (an operation at a size): what bench fills and
 * output writes, and the plan that orders the tests (plan.c). */
#ifndef MM_TEST_H
#define MM_TEST_H
#include <stddef.h>
#include <stdint.h>
#include "mm_adaptive.h" /* the words of nrep_rule and stopped_by (MM_NREP_*, MM_STOP_*) */
#include "mm_config.h"
#include "mm_ops.h"

/* incomplete: a budget (the test's, or roundtime/harmonize's) ended it before --nrep with
 * some valid repetition; a test with no valid repetition is failed (no-valid-repetitions) */
enum { MM_TEST_PENDING = 0, MM_TEST_RUNNING = 1, MM_TEST_COMPLETE = 2, MM_TEST_FAILED = 3,
       MM_TEST_INCOMPLETE = 4 };

/* A process-sync switch within a test (the window's policy, procsync/switch_rule.c). */
enum { MM_MAX_SWITCHES = 4 };
typedef struct mm_switch_record {
    const char *from, *to; /* process-sync names (static words) */
    const char *why;       /* "late-at-cap" | "late-twice" (mm_switch_why) | "round-trip" */
    long from_rep;         /* recorded repetitions before the switch: rep >= from_rep used `to` */
    long at_seq;           /* the loop's sequence number (warm-up included) */
    double late_fraction;  /* of the batch that decided it, worst rank */
    int64_t window_ns;     /* the window (or slack) of `from` when it gave up */
} mm_switch_record;

/* One block of a test's repetitions and the CPU share other processes used on rank 0's machine
 * meanwhile (bench/other_cpu.c; docs/FORMAT.md, tests[].other_cpu). */
typedef struct mm_load_block {
    long first_rep; /* recorded repetitions before the block: its first one's index */
    long nrep;      /* recorded repetitions in it (0: warm-up or redone ones only) */
    double wall_s;  /* its length, rank 0's monotonic clock */
    /* busy CPU − the host's ranks' CPU, s: negative when fewer ticks fell in the block than its
     * ranks ran (/proc/stat's tick), so that blocks can be pooled without the clamp's bias */
    double other_s;
    double share;   /* other_s / (wall × CPUs), clamped to [0, 1] */
} mm_load_block;

typedef struct mm_test {
    int index; /* position in the shuffled plan = order run */
    const mm_op *op;
    int nbc;   /* op is a nonblocking collective (mm_op_is_nbc), for the writers */
    int64_t size;
    int nprocs; /* the size of the communicator the test runs on (docs/FORMAT.md tests[].nprocs) */
    int root;   /* rooted operations: the test's root (--root); -1 for the others */
    int workpieces; /* mw-workpieces: the pieces the master hands out (--workpieces); 0 for others */
    /* the data term of the op's bound on this test's communicator, as a multiple of size
     * (mm_op_bytes_per_size at nprocs, not the launch's); < 0: no bound stated */
    double bound_bytes_per_size;
    /* --subtract-overhead: the empty timed region on the test's ranks, measured before it (the
     * median of its 1001 repetitions, the largest over the ranks), in ns; < 0: not measured */
    double overhead_ns;
    int status;
    long nrep;       /* recorded repetitions */
    long nrep_asked; /* --nrep */
    int ended_by_budget; /* a time budget (the test's, or roundtime/harmonize's) ended it before
                            nrep_asked */
    double budget_s;     /* the test's time budget (--launch-budget-s shared out); 0: none */
    int64_t deadline_local_ns; /* rank 0: when that budget ends, on its clock (0: none) */
    mm_switch_record switches[MM_MAX_SWITCHES];
    int nswitches;
    long invalid;    /* recorded repetitions with valid = 0 on some rank */
    /* rank-repetitions by reason, in the order of MM_INVALID_NREASONS: late_start, overrun,
     * round_late, late_wakeup */
    long invalid_by_reason[4];
    long redone;     /* repetitions repeated (roundtime/harmonize) */
    long redone_by_reason[4]; /* ... by reason (a repetition may have several) */
    long resyncs;    /* harmonize re-syncs inside the test */
    int64_t window_ns;
    int64_t pilot_window_ns; /* the automatic window's first size, from its pilot; 0: none */
    int64_t start_tolerance_ns; /* of the late-wakeup check; 0 when the scheme has no planned start */
    double started_s, duration_s; /* since launch start */
    /* nonblocking collectives (all 0 for other kinds; docs/FORMAT.md, tests[].nbc) */
    int64_t nbc_compute_ns;    /* t_b the overlap phase computed for, the same on every rank */
    int nbc_ntests;            /* MPI_Test calls per repetition */
    long nbc_work_units;       /* work-based: the largest calibrated unit count over ranks */
    int64_t nbc_calibrated_ns; /* work-based: the longest median over ranks of those units alone */
    long nbc_blocking_nrep;    /* repetitions recorded in the blocking phase */
    /* --back-to-back (bench/back_to_back.c): the calls of the companion's interval (0: none
     * ran) and its time per call, the longest over the ranks, in ns */
    int back_to_back_calls;
    double back_to_back_mean_ns;
    /* --nrep auto (bench/decide.c): the rule's verdict, the same on every rank except where
     * marked rank 0 */
    int nrep_rule;            /* MM_NREP_FIXED for a fixed --nrep */
    int stopped_by;           /* MM_STOP_*; MM_STOP_CONTINUE: not adaptive, or the test failed */
    double precision_reached; /* rank 0: at the end of the test; NaN when none could be computed */
    long valid_used;          /* rank 0: valid run times the rule saw at the end */
    long decisions;           /* decisions taken (every --nrep-every repetitions) */
    /* --sizes auto: rank 0's median of the test's valid run times (NaN: none), and where the
     * size came from */
    double median_ns;
    int size_added;   /* added by the refinement (SKaMPI §3.2), not in the initial grid */
    int refine_round; /* 0: the grid; k: added in the k-th refinement round */
    /* rank 0: other processes' CPU share per block of repetitions (bench/other_cpu.c), malloc'd
     * and freed with the launch's tests; NULL when not measured (a --nprocs sub-communicator,
     * /proc/stat unreadable, the test failed) */
    mm_load_block *load_blocks;
    long nload_blocks;
    long load_block_reps; /* repetitions per block, warm-up and redone ones included */
    /* why a test failed (status MM_TEST_FAILED), the same on every rank */
    char error_code[24];     /* "mpi-error" | "alloc-failed" | "resync-failed" |
                                "no-valid-repetitions" */
    char error_message[320]; /* "MPI_Bcast: MPI_ERR_COUNT: invalid count argument" */
} mm_test;

/* --sizes auto: what the refinement did for one operation (meta.json size_refinement). */
typedef struct mm_refine_op {
    const mm_op *op;
    int nadded;       /* sizes added */
    int rounds;       /* refinement rounds in which it was judged */
    double max_error; /* the largest interpolation error left (over the segments that can be split) */
    int stopped_by;   /* MM_STOP_PRECISION (every error below --sizes-precision), MM_STOP_BUDGET
                         (--sizes-budget sizes added), MM_STOP_CONTINUE (not judged yet) */
} mm_refine_op;

/* Index of a reason in mm_test's by-reason arrays, from its MM_INVALID_* flag. */
int mm_invalid_reason_index(int flag);

/* The number of tests of the plan on a launch of nprocs ranks: ops x sizes (one test for an op
 * with MM_OP_SIZE_UNUSED) x communicator sizes (--nprocs) x roots for rooted ops (--root, all:
 * every rank of that communicator) x work pieces for mw-workpieces (--workpieces). */
int mm_plan_size(const mm_config *cfg, int nprocs);
/* The most tests a launch may hold: the plan, and with --sizes auto the --sizes-budget sizes
 * each sized operation may add (refine.c). */
int mm_plan_capacity(const mm_config *cfg, int nprocs);
/* Builds ops x communicator sizes x roots x work pieces x sizes (ops with MM_OP_SIZE_UNUSED get
 * one test at size 0) in the given order. tests must hold mm_plan_size. Returns the count. */
int mm_plan_build(const mm_config *cfg, int nprocs, mm_test *tests, int max_tests);
/* One pending test of op at size on a communicator of nprocs ranks (root -1 and workpieces 0
 * for ops without them), as the plan and the refinement of --sizes auto make them. */
void mm_test_init(mm_test *t, const mm_config *cfg, const mm_op *op, int64_t size, int nprocs, int root,
                  int workpieces);
void mm_plan_shuffle(mm_test *tests, int n, uint64_t seed);
/* --order ascending: each operation's tests by size, stably (otherwise the plan's order: that of
 * --ops, then communicator sizes, roots, work pieces); the plan is built operation by operation.
 * Out of memory: the plan's order as built. Indices follow the new order. */
void mm_plan_ascending(mm_test *tests, int n);

#endif
