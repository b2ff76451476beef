/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_bench.h — the measurement of one test: the loop (loop.c), the nonblocking collectives'
 * phases (nbc_test.c), the cold cache and the memory check. Its neighbours, each included here
 * for bench's own files: mm_test.h (the test record and the plan), mm_gather.h (repetition
 * arrays to raw.csv), mm_decide.h (--nrep auto), mm_pairs.h (the ping-pong pair), mm_launch.h
 * (a whole launch). Code below bench includes only the one it needs. */
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
#include "mm_decide.h"
#include "mm_gather.h"
#include "mm_launch.h"
#include "mm_pairs.h"
#include "mm_test.h"

/* Other processes' CPU share per block of repetitions (other_cpu.c): the loop marks the start,
 * every block boundary and the end of a test's repetitions; after the loop the blocks go into
 * the test's record (rank 0). */
typedef struct mm_other_cpu mm_other_cpu;
/* Collective on the launch's communicator: *out, with room for blocks_hint marks per test (it
 * grows when a test takes more). 0, MM_E_FAILED (MPI failed: err) or MM_E_NOMEM. */
mm_status mm_other_cpu_open(mm_other_cpu **out, MPI_Comm comm, long blocks_hint, mm_mpi_error *err);
void mm_other_cpu_close(mm_other_cpu *oc);
/* A test begins: no marks yet. Does nothing on NULL, like the two below. */
void mm_other_cpu_begin(mm_other_cpu *oc);
/* A mark between two repetitions, `recorded` of them recorded so far: this rank's CPU time, and
 * on rank 0 the machine's busy CPU time and the wall clock. Outside every timed region. */
void mm_other_cpu_mark(mm_other_cpu *oc, long recorded);
/* Collective on the test's communicator (the launch's), after the loop: t->load_blocks on rank 0
 * (left NULL when some rank took another number of marks or ran short of memory, or a figure is
 * unknown). MPI_SUCCESS, or the first MPI error (in err). */
int mm_other_cpu_finish(mm_other_cpu *oc, MPI_Comm comm, long block_reps, mm_test *t,
                        mm_mpi_error *err);

/* What a test runs with, handed from the launch (launch_tests.c) through the nonblocking
 * phases (nbc_test.c) to the loop: set up before the test, not changed by it. */
typedef struct mm_test_run {
    const mm_config *cfg;
    mm_op_args *args;        /* the op's arguments, its buffers set up */
    mm_procsync *ps;         /* the process sync of the test's communicator */
    mm_rep_buffers *b;       /* the repetition arrays (b->cap repetitions at most) */
    mm_decide *d;            /* rank 0's judging of the run times, or NULL (no judging) */
    void *cold_cache;        /* --cold-cache: overwritten after each repetition; NULL when off */
    size_t cold_cache_bytes;
    mm_other_cpu *other_cpu; /* the per-block load, or NULL (not measured in this run) */
} mm_test_run;

/* Runs one test (warm-up, then cfg->nrep recorded repetitions under the process sync, or with
 * --nrep auto as many as the rule wants, up to --nrep-max) on every rank; fills run->b and t
 * (counts, and with run->d the rule's verdict and rank 0's median). Collective. Returns
 * MPI_SUCCESS, or the first MPI error of the timed call or of the process sync, recorded in
 * *err ("MPI_Allreduce: ..."); the test then stopped at that repetition. */
int mm_bench_run_test(const mm_test_run *run, mm_test *t, mm_mpi_error *err);

/* Collective, between two repetitions (bench/switch.c): the process sync asked to give up
 * (ps->switch_why); the test goes on with its fallback (mm_procsync_fallback), which begins
 * now, and t records the switch (from `recorded` repetitions on, at sequence number `seq`).
 * Returns MPI_SUCCESS or the new scheme's begin_test error. */
int mm_bench_switch(mm_procsync *ps, mm_test *t, mm_timed_fn call, const void *arg,
                    long recorded, long seq);

/* Before a test's process sync begins (bench/switch.c): under an automatic window, a round trip
 * (MM_OP_ROUND_TRIP) runs with `none` from its first repetition, recorded in t as a switch with
 * why MM_SWITCH_ROUND_TRIP. 1 when it did, 0 when the test keeps the configured scheme. */
#define MM_SWITCH_ROUND_TRIP "round-trip"
int mm_bench_round_trip_alone(mm_procsync *ps, mm_test *t, const mm_config *cfg);

/* A nonblocking collective's test (bench/nbc_test.c): the blocking phase (I-call + wait; with
 * --nrep auto the rule decides its length, and the overlap phase records as many), then
 * t_b (--nbc-compute-ns or the blocking median, the maximum over ranks), the work calibration
 * for --nbc-scheme work, then the overlap phase, both through mm_bench_run_test. A repetition is
 * valid when both phases' repetitions of its index are. Collective; returns as
 * mm_bench_run_test. */
int mm_bench_run_nbc_test(const mm_test_run *run, mm_test *t, mm_mpi_error *err);
/* MPI_Test calls of a nonblocking test of `size` bytes: ceil(size / interval) + 1, or 0 without
 * an interval (NBCBench §4.2). Saturates at INT_MAX. */
int mm_nbc_test_calls(int64_t size, int64_t interval_bytes);

/* The back-to-back companion of a test (bench/back_to_back.c), once its repetitions are
 * recorded in run->b: N calls timed as one interval after one unrecorded interval, through the
 * loop with a copy of the configuration (--batch N, a barrier before each interval), into
 * arrays of its own; sets t->back_to_back_calls and t->back_to_back_mean_ns (the interval / N,
 * the longest over the ranks). Collective; returns MPI_SUCCESS or the calls' first error. */
int mm_bench_run_back_to_back(const mm_test_run *run, mm_test *t, mm_mpi_error *err);
/* Does --back-to-back apply to op: on (N > 0), without --batch, a ping-pong or a blocking
 * collective that --batch accepts (no clean-up after each call). */
int mm_back_to_back_applies(const mm_config *cfg, const mm_op *op);
/* Whether --back-to-back times op's calls at all (a ping-pong or blocking collective that --batch
 * could time), whatever the launch's options. */
int mm_op_takes_back_to_back(const mm_op *op);
/* The companion's calls: asked, lowered so that asked calls of call_ns fit in 10 ms (at least
 * 1); 0 when asked is 0. */
int mm_back_to_back_calls(int asked, double call_ns);

/* Overwrites a buffer (outside the timed region) to evict caches (Hunold §4.7). */
void mm_cold_cache_touch(void *buf, size_t bytes);

/* Before a launch allocates anything: do the buffers of its largest test (per rank: the op's
 * buffers, the --cold-cache buffer and the per-repetition arrays), summed over the ranks of each
 * host, fit in the host's MemAvailable (/proc/meminfo) or its cgroup v2 limit, whichever is smaller (no check
 * when neither is readable)? Collective.
 * 0, or MM_E_INPUT with a message on rank 0 in err (every rank returns the same). */
int mm_memory_check(const mm_config *cfg, MPI_Comm comm, char *err, size_t err_len);
/* Collective: *out = the ranks of comm running on this rank's kernel (same boot id), which
 * share its CPUs and memory even when MPI calls them separate nodes (network namespaces,
 * containers); MPI_COMM_TYPE_SHARED where a boot id cannot be read (same_kernel.c). The caller
 * frees *out. Returns MPI_SUCCESS or the first MPI error (recorded in err). */
int mm_comm_same_kernel(MPI_Comm comm, MPI_Comm *out, mm_mpi_error *err);
/* Collective: *one = 1 when every rank reads one kernel clock (one kernel, one time namespace).
 * Returns MPI_SUCCESS or this rank's first MPI error (recorded in err; *one = 0); every rank makes
 * the same calls either way, so the caller agrees on the outcome with mm_all_ok. */
int mm_comm_one_clock(MPI_Comm comm, int *one, mm_mpi_error *err);
/* The bytes the per-repetition arrays take on a rank (rank 0 also receives the rows: a chunk of
 * ranks' arrays with full rows, the reductions' results with --raw reduced). */
int64_t mm_rep_arrays_bytes(long nrep, int rank, int nprocs, int reduced);
/* MemAvailable of /proc/meminfo in bytes, or -1 when unreadable. */
int64_t mm_mem_available_bytes(const char *meminfo_path);
/* What a cgroup v2 memory limit leaves (memory.max - memory.current, 0 when over), or -1 when
 * there is no limit ("max") or a file is unreadable. */
int64_t mm_cgroup_available_bytes(const char *max_path, const char *current_path);

#endif
