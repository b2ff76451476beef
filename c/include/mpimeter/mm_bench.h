/* mm_bench.h — the experiment: the plan (tests = operations x sizes, shuffled with a seed),
 * the measurement loop and the launch state that output serializes. */
#ifndef MM_BENCH_H
#define MM_BENCH_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mm_adaptive.h"
#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_error.h"
#include "mm_ops.h"
#include "mm_procsync.h"
#include "mm_timer.h"

enum { MM_TEST_PENDING = 0, MM_TEST_RUNNING = 1, MM_TEST_COMPLETE = 2, MM_TEST_FAILED = 3 };

typedef struct mm_test {
    int index; /* position in the shuffled plan = order run */
    const mm_op *op;
    int nbc;   /* op is a nonblocking collective (mm_op_is_nbc), for the writers */
    int64_t size;
    int status;
    long nrep;       /* recorded repetitions */
    long nrep_asked; /* --nrep */
    int ended_by_budget; /* roundtime/harmonize: the time budget ended it before nrep_asked */
    long invalid;    /* recorded repetitions with valid = 0 on some rank */
    /* rank-repetitions by reason, in the order of MM_INVALID_NREASONS: late_start, overrun,
     * round_late, late_wakeup */
    long invalid_by_reason[4];
    long redone;     /* repetitions repeated (roundtime/harmonize) */
    long redone_by_reason[4]; /* ... by reason (a repetition may have several) */
    long resyncs;    /* harmonize re-syncs inside the test */
    int64_t window_ns;
    int64_t start_tolerance_ns; /* of the late-wakeup check; 0 when the scheme has no planned start */
    double started_s, duration_s; /* since launch start */
    /* nonblocking collectives (all 0 for other kinds; docs/FORMAT.md, tests[].nbc) */
    int64_t nbc_compute_ns;    /* t_b the overlap phase computed for, the same on every rank */
    int nbc_ntests;            /* MPI_Test calls per repetition */
    long nbc_work_units;       /* work-based: the largest calibrated unit count over ranks */
    int64_t nbc_calibrated_ns; /* work-based: the longest median over ranks of those units alone */
    long nbc_blocking_nrep;    /* repetitions recorded in the blocking phase */
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
    /* why a test failed (status MM_TEST_FAILED), the same on every rank */
    char error_code[24];     /* "mpi-error" | "alloc-failed" | "resync-failed" */
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

/* The number of tests of the plan: ops x sizes, one test for an op with MM_OP_SIZE_UNUSED. */
int mm_plan_size(const mm_config *cfg);
/* The most tests a launch may hold: the plan, and with --sizes auto the --sizes-budget sizes
 * each sized operation may add (refine.c). */
int mm_plan_capacity(const mm_config *cfg);
/* Builds ops x sizes (ops with MM_OP_SIZE_UNUSED get one test at size 0) in the given order,
 * then shuffles with seed (Fisher-Yates). tests must hold nops*nsizes. Returns the count. */
int mm_plan_build(const mm_config *cfg, mm_test *tests, int max_tests);
void mm_plan_shuffle(mm_test *tests, int n, uint64_t seed);

/* Per-rank buffers of one test, preallocated before the loop. */
typedef struct mm_rep_buffers {
    long cap;
    int64_t *start_ns, *end_ns;   /* local, raw (epoch not yet subtracted) */
    int64_t *gstart_ns, *gend_ns; /* global */
    int32_t *invalid;             /* flags */
    /* nonblocking collectives: the components of each repetition (ns) and, from the test's
     * blocking phase, the I-call + wait time and flags of the repetition with the same index */
    int64_t *init_ns, *test_ns, *wait_ns, *compute_ns, *blocking_ns;
    int32_t *blocking_flags;
    /* per-repetition counters (mm_counters.h), not owned; NULL when off */
    struct mm_counters *counters;
} mm_rep_buffers;
int mm_rep_buffers_alloc(mm_rep_buffers *b, long cap);
void mm_rep_buffers_free(mm_rep_buffers *b);

/* One test's rows from every rank to rank 0 and into raw.csv in bounded memory (gather.c): full
 * rows a chunk of ranks at a time (at most MM_GATHER_CHUNK_BYTES of arrays on rank 0), reduced
 * rows by MPI reductions (O(nrep)). */
#define MM_GATHER_CHUNK_BYTES ((int64_t)4 << 20)
typedef struct mm_gather_space {
    long nrep;
    int chunk_ranks;                          /* rank 0: ranks whose arrays fit at once */
    int64_t *i64[4 + MM_NBC_NCOMPONENTS];     /* rank 0: start, end, gstart, gend, components */
    int32_t *invalid, *any_invalid;           /* rank 0: chunk flags; per repetition, any rank */
    int64_t *scratch, *duration;              /* every rank: the reduced mode's inputs */
    int32_t *flag;
} mm_gather_space;
typedef struct mm_gather_request {
    MPI_Comm comm;
    int rank, nprocs;
    FILE *raw;              /* rank 0 */
    const mm_test *test;
    long nrep;              /* the same on every rank */
    int nbc, has_global, reduced;
    int64_t epoch_ns;
} mm_gather_request;
int mm_gather_chunk_ranks(long nrep, int nprocs);
/* What mm_gather_space_alloc takes; with --raw reduced rank 0 needs one rank's space, not a chunk. */
int64_t mm_gather_bytes(long nrep, int rank, int nprocs, int reduced);
int mm_gather_space_alloc(mm_gather_space *g, long nrep, int rank, int nprocs, int reduced);
void mm_gather_space_free(mm_gather_space *g);
/* Collective. 0, or -1 when rank 0 could not write (its return; others return 0); MPI failures
 * in err. *ninvalid (rank 0): repetitions invalid on some rank. */
int mm_gather_write_test(const mm_gather_request *q, const mm_rep_buffers *b, mm_gather_space *g,
                         long *ninvalid, mm_mpi_error *err);

/* What rank 0 needs to judge a test while it runs (decide.c): every recorded repetition's run
 * time across ranks (max end - min start on the global clock, or the longest local duration)
 * and whether it is valid on every rank, reduced to rank 0 a chunk at a time outside the timed
 * region; the stopping rule's verdict broadcast from rank 0, so that all ranks stop together. */
typedef struct mm_decide {
    MPI_Comm comm;
    int rank;
    int has_global;         /* run times on the global clock (else the longest local duration) */
    int64_t spread_ns;      /* > 0: starts further apart than this make a repetition invalid, as
                               the analysis's start-spread check does; 0: not checked */
    long chunk;             /* repetitions per reduction */
    int64_t *send, *recv;   /* 5 x chunk */
    double *runtimes;       /* rank 0: the valid run times so far (cap) */
    double *scratch;        /* rank 0: a copy the rule may sort */
    long cap, nvalid, upto; /* upto: repetitions reduced so far */
    int64_t started_ns;     /* rank 0: when the test's measuring began, on its timer */
} mm_decide;
int mm_decide_alloc(mm_decide *d, long cap, long chunk, int has_global, MPI_Comm comm);
void mm_decide_free(mm_decide *d);
/* Starts a test (or a nonblocking test's phase) anew at now_ns (rank 0's timer). */
void mm_decide_begin(mm_decide *d, int64_t spread_ns, int64_t now_ns);
/* Collective: reduces repetitions [d->upto, upto) of b to rank 0. MPI_SUCCESS or the error. */
int mm_decide_collect(mm_decide *d, const mm_rep_buffers *b, long upto, mm_mpi_error *err);
/* Collective: rank 0 applies the rule to what it collected after `recorded` repetitions and
 * broadcasts the verdict (MM_STOP_*) into *reason on every rank; *reached (rank 0) is the
 * precision now. MPI_SUCCESS or the error. */
int mm_decide_stop(mm_decide *d, const mm_stop_rule *rule, long recorded, int64_t now_ns, int *reason,
                   double *reached, mm_mpi_error *err);
/* Rank 0: the precision and the median of everything collected (NaN when nothing valid). */
double mm_decide_precision(mm_decide *d, const mm_stop_rule *rule);
double mm_decide_median(mm_decide *d);
/* The stopping rule of cfg (--nrep auto), with the timer's resolution for rse. */
mm_stop_rule mm_decide_rule(const mm_config *cfg, double resolution_ns);

/* Runs one test (warm-up, then cfg->nrep recorded repetitions under the process sync, or with
 * --nrep auto as many as the rule wants, up to --nrep-max) on every rank; fills b and t
 * (counts, and with `d` the rule's verdict and rank 0's median). d may be NULL (no judging).
 * Collective. Returns MPI_SUCCESS, or the first MPI error of the timed call or of the process
 * sync, recorded in *err ("MPI_Allreduce: ..."); the test then stopped at that repetition. */
int mm_bench_run_test(const mm_config *cfg, mm_test *t, mm_op_args *args, mm_procsync *ps,
                      mm_rep_buffers *b, mm_decide *d, void *cold_cache, size_t cold_cache_bytes,
                      mm_mpi_error *err);

/* A nonblocking collective's test (bench/nbc_test.c): the blocking phase (I-call + wait; with
 * --nrep auto the rule decides its length, and the overlap phase records as many), then
 * t_b (--nbc-compute-ns or the blocking median, the maximum over ranks), the work calibration
 * for --nbc-scheme work, then the overlap phase, both through mm_bench_run_test. A repetition is
 * valid when both phases' repetitions of its index are. Collective; returns as
 * mm_bench_run_test. */
int mm_bench_run_nbc_test(const mm_config *cfg, mm_test *t, mm_op_args *args, mm_procsync *ps,
                          mm_rep_buffers *b, mm_decide *d, void *cold_cache, size_t cold_cache_bytes,
                          mm_mpi_error *err);
/* MPI_Test calls of a nonblocking test of `size` bytes: ceil(size / interval) + 1, or 0 without
 * an interval (NBCBench §4.2). Saturates at INT_MAX. */
int mm_nbc_test_calls(int64_t size, int64_t interval_bytes);

/* Overwrites a buffer (outside the timed region) to evict caches (Hunold §4.7). */
void mm_cold_cache_touch(void *buf, size_t bytes);

/* Before a launch allocates anything: do the buffers of its largest test (per rank: the op's
 * buffers, the --cold-cache buffer and the per-repetition arrays), summed over the ranks of each
 * host, fit in the host's MemAvailable (/proc/meminfo) or its cgroup v2 limit, whichever is smaller (no check
 * when neither is readable)? Collective.
 * 0, or 2 with a message on rank 0 in err (every rank returns the same). */
int mm_memory_check(const mm_config *cfg, MPI_Comm comm, char *err, size_t err_len);
/* Collective: *out = the ranks of comm running on this rank's kernel (same boot id), which
 * share its CPUs and memory even when MPI calls them separate nodes (network namespaces,
 * containers); MPI_COMM_TYPE_SHARED where a boot id cannot be read (same_kernel.c). The caller
 * frees *out. Returns MPI_SUCCESS or the first MPI error (recorded in err). */
int mm_comm_same_kernel(MPI_Comm comm, MPI_Comm *out, mm_mpi_error *err);
/* The bytes the per-repetition arrays take on a rank (rank 0 also receives the rows: a chunk of
 * ranks' arrays with full rows, the reductions' results with --raw reduced). */
int64_t mm_rep_arrays_bytes(long nrep, int rank, int nprocs, int reduced);
/* MemAvailable of /proc/meminfo in bytes, or -1 when unreadable. */
int64_t mm_mem_available_bytes(const char *meminfo_path);
/* What a cgroup v2 memory limit leaves (memory.max - memory.current, 0 when over), or -1 when
 * there is no limit ("max") or a file is unreadable. */
int64_t mm_cgroup_available_bytes(const char *max_path, const char *current_path);

/* ---- the ping-pong pair (pairs.c) ---- */

enum { MM_PAIR_NEXT_RANKS = 16, MM_PAIR_RANDOM = 4, MM_PAIR_MAX_SAMPLES = 20,
       MM_PAIR_ROUND_TRIPS = 51, MM_PAIR_WARMUP = 10 };
enum { MM_PAIR_NONE = 0, MM_PAIR_GIVEN = 1, MM_PAIR_SAMPLED = 2 };

/* The sampled pairs' 1-byte round trips, measured once per launch before the tests: the
 * latency floor of each pair (meta.json probes.latency_floor) and SKaMPI's choice of the
 * ping-pong pair (probes.pingpong_pair) both come from it. */
typedef struct mm_pair_survey {
    int nsamples;
    int sample[MM_PAIR_MAX_SAMPLES][2];
    double median_rtt_ns[MM_PAIR_MAX_SAMPLES]; /* < 0: the sample failed */
    double min_rtt_ns[MM_PAIR_MAX_SAMPLES];    /* < 0: the sample failed */
} mm_pair_survey;

/* The pair of a launch's ping-pongs and how it was chosen (meta.json probes.pingpong_pair). */
typedef struct mm_pair_choice {
    int pair[2];
    int chosen_by; /* MM_PAIR_NONE (no ping-pong in the launch), _GIVEN (--pair), _SAMPLED */
    int nsamples;
    int sample[MM_PAIR_MAX_SAMPLES][2];
    double median_rtt_ns[MM_PAIR_MAX_SAMPLES]; /* < 0: the sample failed */
} mm_pair_choice;

/* The pairs SKaMPI's rule samples: rank 0 with ranks 1 .. min(nprocs-1, MM_PAIR_NEXT_RANKS),
 * then up to MM_PAIR_RANDOM distinct pairs drawn from the seed among those not yet listed (when
 * there are any). Pure. Returns the number written (at most max). */
int mm_pair_sample(int nprocs, uint64_t seed, int (*pairs)[2], int max);
/* Index of the largest median (the first of equal ones); medians < 0 are skipped; -1 if none. */
int mm_pair_pick(const double *median_rtt_ns, int n);
/* Collective: the survey of the sampled pairs (mm_pair_sample): each pair's 1-byte round trips
 * (MM_PAIR_ROUND_TRIPS after MM_PAIR_WARMUP, one pair at a time), their median and minimum.
 * Every rank gets the same survey. Outside any timed region. MPI_SUCCESS or the error. */
int mm_pair_survey_run(const mm_config *cfg, MPI_Comm comm, const mm_timer *timer, mm_pair_survey *out);
/* The pair of the launch's ping-pongs: --pair, or the surveyed pair with the largest median
 * round trip (SKaMPI's rule). Pure. */
void mm_pair_choose(const mm_config *cfg, const mm_pair_survey *survey, mm_pair_choice *out);

/* ---- the launch (launch.c, collect.c) ---- */

/* What a launch tells its caller (app/main.c prints it): on rank 0 after success the number of
 * tests written; on any rank the messages for the user, one per line, without the binary's
 * name (empty when none). */
typedef struct mm_launch_result {
    int ntests;
    char messages[4096];
} mm_launch_result;
/* Runs a whole launch as configured: timer, clock sync, plan, every test, the launch folder.
 * Collective. Returns MM_OK; MM_E_INPUT when the buffers would not fit in memory (refused
 * before anything is written); MM_E_FAILED after a failure while measuring; MM_E_NOMEM
 * (mm_error.h). Prints nothing. */
int mm_launch_run(const mm_config *cfg, MPI_Comm comm, mm_launch_result *result);

/* The --sync-check mode (c/src/clocksync/sync_check.c): runs each algorithm of cfg->clocksync and
 * reports residuals at cfg->check_at_s. Collective. Returns the process exit code. */
int mm_sync_check_run(const mm_config *cfg, MPI_Comm comm);

/* Gathers every rank's sync records from index *written on to rank 0 and appends them to f
 * (rank 0; f may be NULL elsewhere). Collective. */
int mm_collect_sync_log(mm_sync_log *log, size_t *written, FILE *f, int64_t epoch_ns, MPI_Comm comm);

#endif
