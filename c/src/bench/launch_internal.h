/* SPDX-License-Identifier: BSD-3-Clause */
/* launch_internal.h — what the files of a launch share: the launch state, read and written by
 * launch.c (the flow of a launch), launch_state.c (meta.json, the clock sync), launch_tests.c
 * (running and recording the tests), refine.c (--sizes auto) and subcomm.c (--nprocs). A field
 * that one file alone uses lives in that file. Internal to c/src/bench/. */
#ifndef MM_LAUNCH_INTERNAL_H
#define MM_LAUNCH_INTERNAL_H
#include "mm_bench.h"
#include "mm_counters.h"
#include "mm_output.h"

typedef struct mm__launch_state {
    const mm_config *cfg;
    MPI_Comm comm;
    int rank, nprocs;
    mm_timer timer;
    mm_clocksync cs;
    /* meta.json clock_sync.chosen: "given", "auto", or "auto, one clock" (none ran: every rank
     * reads one kernel clock) */
    const char *clocksync_chosen;
    mm_procsync ps;
    mm_provenance prov;
    mm_test *tests;
    int ntests;
    int max_tests; /* room in tests: mm_plan_capacity */
    int64_t epoch_ns;
    int64_t start_local_ns;
    mm_outdir out;
    int meta_unwritable;    /* rank 0: a write of meta.json failed, and said why (once) */
    size_t sync_written;
    /* gathered on rank 0 */
    mm_clock_model *models;
    int *parents;
    int64_t *virtual_offsets_ns;
    double *virtual_skews_ppm;
    int *res_ranks[2];
    int64_t *res_ns[2];
    int nres[2];
    /* rank 0: what meta.json's "conditions" say */
    mm_conditions conditions;
    mm_mpi_error err;       /* the first MPI failure outside the tests */
    int pair[2];            /* the ping-pongs' two ranks (every rank; prov.pair on rank 0 too) */
    /* --sizes auto (refine.c): per operation that takes a size, in --ops order (rank 0) */
    mm_refine_op refine[MM_MAX_OPS];
    int nrefine;
    mm_counters *counters;  /* per-repetition counters; NULL when off */
    mm_launch_result *result; /* what the caller (app/main.c) tells the user */
    int64_t phase_zero_ns;    /* CLOCK_MONOTONIC when main began (or the launch, if unknown) */
    mm_phases phases;         /* meta.json "phases" (rank 0's are written) */
} mm__launch_state;

/* Records one message for the user in st->result (a line; app/main.c prints it with the
 * binary's name). The launch prints nothing itself (mm_error.h). */
void mm__launch_say(mm__launch_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* This rank's first MPI failure (st->err), if any, as one message: "rank R: MPI failed WHEN: ..."
 * or, with when NULL, "MPI failed: ..." (launch_state.c). */
void mm__say_mpi_failure(mm__launch_state *st, const char *when);

/* Rank 0: renders and atomically writes meta.json with the given status (launch_state.c). */
mm_status mm__write_meta(mm__launch_state *st, const char *status);
/* Collective: one clock sync (initial or re-sync), its log and models recorded (launch_state.c). */
mm_status mm__sync(mm__launch_state *st);
/* Collective, after the first sync's residual check: the sync checks itself (clocksync/
 * self_check.c); when the offset-only model is better, the models are gathered again and a
 * condition says so (launch_state.c). 0, or MM_E_FAILED when MPI failed. */
mm_status mm__sync_self_check(mm__launch_state *st);
/* meta.json "phases": a phase begins / ends now, on CLOCK_MONOTONIC (launch_state.c). */
void mm__phase_begin(mm__launch_state *st, int phase);
void mm__phase_end(mm__launch_state *st, int phase);
int64_t mm__monotonic_ns(void);
/* Seconds since the launch started, on rank 0's clock... on this rank's clock (launch_state.c). */
double mm__seconds_since(const mm__launch_state *st);

/* --nprocs (subcomm.c): per size below the launch's, the communicator of its first ranks and
 * their process sync. Collective: opens them into *subs (to be closed by mm__subcomms_close
 * whatever the result, also when it is NULL); 0, or MM_E_FAILED when a rank could not. */
typedef struct mm__subcomms mm__subcomms;
mm_status mm__subcomms_open(mm__launch_state *st, mm__subcomms **subs);
void mm__subcomms_close(mm__subcomms *subs);
/* The communicator and process sync test t runs on; 1 when this rank is inside it. */
int mm__test_comm(mm__launch_state *st, mm__subcomms *subs, const mm_test *t, MPI_Comm *comm,
                  mm_procsync **ps);
/* --subtract-overhead (probe.c): collective on comm, the test's communicator: the median empty
 * timed region, the largest over its ranks, in ns (SKaMPI §3.1); -1 when it could not be
 * measured. */
double mm__test_overhead_ns(MPI_Comm comm, const mm_timer *timer, mm_mpi_error *err);

/* Collective: runs every test of the plan in order, writing each one's rows and meta.json as it
 * finishes; a test whose MPI call fails is marked failed and the launch goes on when every rank
 * can agree on it (launch_tests.c). Returns 0, or MM_E_FAILED when the launch cannot go on. */
mm_status mm__run_tests(mm__launch_state *st);

/* Collective, --sizes auto (refine.c): after the tests so far, rank 0 picks for each operation
 * whose worst interpolation error is still above --sizes-precision (and whose --sizes-budget is
 * not spent) the size that splits its worst segment; every rank appends the same new tests to
 * the plan, in an order shuffled with the seed. Returns how many were added (0: the refinement
 * is done), or MM_E_FAILED when MPI failed. */
int mm__refine_round(mm__launch_state *st, int round);

#endif
