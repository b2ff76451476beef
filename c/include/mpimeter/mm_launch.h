/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_launch.h — a whole launch and the commands beside it (launch.c; app/sync_check.c;
 * collect.c): what app/main.c calls. */
#ifndef MM_LAUNCH_H
#define MM_LAUNCH_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_error.h"
#include "mm_test.h"

/* What a launch tells its caller (app/main.c prints it): on rank 0 after success the number of
 * tests written; on any rank the messages for the user, one per line, without the binary's
 * name (empty when none). With on_message set, each message of the running launch goes to it
 * as it happens instead (a launch killed by its timeout has shown what it said so far); the
 * library still prints nothing itself. With on_test set, each finished test's facts. */
/* A finished test's facts, as rank 0 hands them to on_test (app/progress.c prints them). */
typedef struct mm_test_facts {
    int finished, planned; /* tests ended so far (this one included) of those planned now */
    const mm_test *test;   /* op, size, status (complete, incomplete or failed), nrep, error */
    long valid;            /* recorded repetitions valid on every rank (those the analysis keeps) */
    double median_ns;      /* the median of their run times; NaN when none, or when not collected
                            * (a --nprocs test on fewer ranks than the launch: valid > 0) */
    const char *run_time;  /* how a run time was taken: "global clock" (max end - min start over
                            * ranks) or "local clock" (the longest rank's duration) */
    const char *procsync;  /* how the repetitions were started: the process sync */
} mm_test_facts;

typedef struct mm_launch_result {
    int ntests;
    char messages[4096];
    void (*on_message)(const char *line, void *ctx); /* optional: one line, without newline */
    void *on_message_ctx;
    /* optional, given by the caller: CLOCK_MONOTONIC (ns) when its main began, before MPI_Init,
     * so that meta.json's "phases" count MPI_Init in "init"; 0 = unknown (they then count from
     * the call of mm_launch_run) */
    int64_t main_entered_ns;
    /* optional: rank 0 calls it as each test ends. The median is there when the configuration
     * asks for it (--progress resolved to MM_PROGRESS_ON, on every rank alike: each test then
     * reduces its run times to rank 0 after its last repetition, outside the timed region,
     * bench/decide.c), or when --nrep auto / --sizes auto collect them anyway; else NaN. */
    void (*on_test)(const mm_test_facts *facts, void *ctx);
    void *on_test_ctx;
} mm_launch_result;
/* Runs a whole launch as configured: timer, clock sync, plan, every test, the launch folder.
 * Collective. Returns MM_OK; MM_E_INPUT when the buffers would not fit in memory (refused
 * before anything is written); MM_E_FAILED after a failure while measuring; MM_E_NOMEM
 * (mm_error.h). Prints nothing. */
mm_status mm_launch_run(const mm_config *cfg, MPI_Comm comm, mm_launch_result *result);

/* The --sync-check mode (c/src/clocksync/sync_check.c): runs each algorithm of cfg->clocksync and
 * reports residuals at cfg->check.check_at_s. Collective. Returns 0, or MM_E_INPUT / MM_E_FAILED
 * with the message on stderr (main.c maps it to the exit code). */
mm_status mm_sync_check_run(const mm_config *cfg, MPI_Comm comm);

/* Gathers every rank's sync records from index *written on to rank 0 and appends them to f
 * (rank 0; f may be NULL elsewhere). Collective; every rank returns the same status: MM_OK,
 * MM_E_NOMEM (rank 0 could not allocate what it receives into), or MM_E_FAILED (an MPI failure
 * on some rank; sync.csv that rank 0 cannot write). why holds the message on the rank that
 * failed and is "" on the others, so that one line says what happened. */
mm_status mm_collect_sync_log(mm_sync_log *log, size_t *written, FILE *f, int64_t epoch_ns, MPI_Comm comm,
                              char *why, size_t why_len);

#endif
