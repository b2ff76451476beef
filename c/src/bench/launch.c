/* SPDX-License-Identifier: BSD-3-Clause */
/* launch.c — one launch (one call to mpirun) from start to end: timer, provenance, clock sync,
 * the cache-line probe, the shuffled plan, every test (launch_tests.c), the final residual check
 * and sync, and the launch folder written throughout (meta.json atomically), so that a launch
 * killed midway leaves a folder that says how far it got.
 *
 * The binary writes facts (docs/FORMAT.md): counts, residuals, windows, and structured
 * conditions {code, message, hint, where}; it does not judge them — the analysis does. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch_internal.h"
#include "mm_error.h"

/* Collective: residual offsets (global vs global) measured by rank 0; which = 0 start, 1 end. */
static void mm__residuals(mm__launch_state *st, int which) {
    int n = 0;
    mm_clocksync_residuals(&st->cs, which == 0 ? -1 : -2, st->res_ranks[which], st->res_ns[which],
                           NULL, &n);
    st->nres[which] = st->rank == 0 ? n : 0;
    char why[256] = "";
    /* every rank gets the same status; the rank that failed says why, and the launch goes on
     * without these residuals' records in sync.csv */
    mm_collect_sync_log(&st->cs.log, &st->sync_written, st->rank == 0 ? st->out.sync : NULL, st->epoch_ns,
                        st->comm, why, sizeof why);
    if (why[0]) mm__launch_say(st, "rank %d: %s", st->rank, why);
}

/* --fit-target-ns auto (the sync's cost proportional to what the launch needs): a
 * process sync that plans starts needs the clocks within its start tolerance, so an hca3 edge
 * stops adding fit points once its predicted error 5 s ahead is within that tolerance; without
 * planned starts every point is taken (0). Quiet, Open MPI, 2 ranks: the sync 0.20 -> 0.08 s,
 * the end-of-launch residual 16 -> 24 ns (bench/results/launch_states_quiet.json). */
static int64_t mm__fit_target_ns(const mm_config *cfg, const mm_timer *timer) {
    if (cfg->cs.params.fit_target_ns > 0) return cfg->cs.params.fit_target_ns; /* given */
    const mm_procsync_vtable *vt = mm_procsync_find(cfg->procsync);
    if (vt == NULL || !vt->has_planned_start) return 0;
    return mm_config_start_tolerance_ns(cfg, timer->overhead_ns);
}

/* Collective: more ranks on this machine (this kernel) than CPUs they may run on? Then waiting
 * must yield. Under SimGrid's SMPI the machine is the simulated host: simulated time knows
 * nothing of the one real process that runs every rank (docs/GUIDE.md, "Ranks outnumbering
 * cores"), so only ranks placed on one simulated host compete. */
static int mm__oversubscribed(mm__launch_state *st, int *ranks_here, int *cpus_here) {
    MPI_Comm node;
    *ranks_here = 1;
    *cpus_here = 0;
#ifdef MM_SIMGRID
    int grouped = MM_MPI(&st->err, MPI_Comm_split_type(st->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                                      &node)) == MPI_SUCCESS;
#else
    int grouped = mm_comm_same_kernel(st->comm, &node, &st->err) == MPI_SUCCESS;
#endif
    /* the ranks of a host count their CPUs together only when every rank has its group: a rank
     * whose grouping failed would leave its host's others waiting for it (its MPI failure stops
     * the launch before the tests, mm__start) */
    if (mm_all_ok(st->comm, grouped)) {
        MM_MPI(&st->err, MPI_Comm_size(node, ranks_here));
        /* the CPUs the ranks of this host may run on: the union of their affinity masks */
        cpu_set_t mine, all;
        CPU_ZERO(&mine);
        CPU_ZERO(&all);
        if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_ZERO(&mine);
        MM_MPI(&st->err, MPI_Allreduce(&mine, &all, (int)sizeof mine, MPI_UNSIGNED_CHAR, MPI_BOR, node));
        *cpus_here = CPU_COUNT(&all);
    }
    if (grouped) MM_MPI(&st->err, MPI_Comm_free(&node));
    return !mm_all_ok(st->comm, !(*cpus_here > 0 && *ranks_here > *cpus_here));
}

static mm_status mm__open_modules(mm__launch_state *st) {
    const mm_config *cfg = st->cfg;
    char why[512] = "";
    mm_virtual_params vp;
    mm_config_virtual_params(cfg, st->rank, &vp);
    int ok = mm_timer_open(&st->timer, cfg->timing.timer, &vp, why, sizeof why) == 0;
    if (!mm_all_ok(st->comm, ok)) {
        if (!ok) mm__launch_say(st, "rank %d: --timer %s: %s", st->rank, cfg->timing.timer, why);
        return MM_E_FAILED;
    }
    int ranks_here = 0, cpus_here = 0;
    if (mm__oversubscribed(st, &ranks_here, &cpus_here)) {
        st->timer.yield_while_waiting = 1;
        mm_condition *c = st->rank == 0 ? mm_conditions_entry(&st->conditions, "oversubscribed", NULL)
                                        : NULL;
        if (c) {
            snprintf(c->message, sizeof c->message,
                     "more ranks than CPUs on a machine (on rank 0's: %d ranks share %d CPUs): waiting "
                     "yields the CPU, and run times include time other ranks held it",
                     ranks_here, cpus_here);
            snprintf(c->hint, sizeof c->hint,
                     "run at most one rank per CPU for timings; oversubscribed launches test "
                     "correctness");
        }
    }
    mm_clocksync_params cs_params = cfg->cs.params;
    cs_params.fit_target_ns = mm__fit_target_ns(cfg, &st->timer);
    const char *clocksync = cfg->clocksync[0];
    st->clocksync_chosen = cfg->cs.clocksync_auto ? "auto" : "given";
    if (cfg->cs.clocksync_auto && st->timer.vt->kernel_wide) {
        /* every rank reads the same clock: a sync could only add its own error to exact
         * offsets of zero, and costs a tenth of a second (docs/ALGORITHMS.md, "One clock") */
        int one = 0;
        /* a rank whose question failed says so (mm_launch_run: its MPI failure); every rank
         * stops here together, none waits in the clock sync's first collective */
        int asked = mm_comm_one_clock(st->comm, &one, &st->err) == MPI_SUCCESS;
        if (!mm_all_ok(st->comm, asked)) return MM_E_FAILED;
        if (one) {
            clocksync = "none";
            st->clocksync_chosen = "auto, one clock";
        }
    }
    int cs_ok = mm_clocksync_open(&st->cs, clocksync, st->comm, &st->timer, &cs_params) == 0;
    ok = cs_ok && mm_procsync_open(&st->ps, cfg->procsync, st->comm, &st->timer, &st->cs, cfg) == 0;
    if (!ok) {
        char what[sizeof st->cs.err.call + sizeof st->cs.err.text + 4] = "";
        if (mm_mpi_failed(&st->cs.err)) {
            snprintf(what, sizeof what, ": ");
            mm_mpi_error_format(&st->cs.err, what + 2, sizeof what - 2);
        }
        mm__launch_say(st, "rank %d: cannot open %s %s%s", st->rank, cs_ok ? "--procsync" : "--clocksync",
                       cs_ok ? cfg->procsync : clocksync, what);
    }
    return mm_all_ok(st->comm, ok) ? 0 : MM_E_FAILED;
}

/* Rank 0's arrays of what it gathers from every rank. */
static mm_status mm__alloc_rank0(mm__launch_state *st) {
    if (st->rank != 0) return 0;
    st->models = calloc((size_t)st->nprocs, sizeof *st->models);
    st->parents = calloc((size_t)st->nprocs, sizeof *st->parents);
    int ok = st->models && st->parents;
    for (int w = 0; w < 2; w++) {
        st->res_ranks[w] = calloc((size_t)st->nprocs, sizeof(int));
        st->res_ns[w] = calloc((size_t)st->nprocs, sizeof(int64_t));
        ok = ok && st->res_ranks[w] && st->res_ns[w];
    }
    if (strcmp(st->cfg->timing.timer, "virtual") == 0) {
        st->virtual_offsets_ns = calloc((size_t)st->nprocs, sizeof(int64_t));
        st->virtual_skews_ppm = calloc((size_t)st->nprocs, sizeof(double));
        ok = ok && st->virtual_offsets_ns && st->virtual_skews_ppm;
    }
    return ok ? 0 : MM_E_FAILED;
}

static void mm__free_state(mm__launch_state *st) {
    free(st->models);
    free(st->parents);
    free(st->virtual_offsets_ns);
    free(st->virtual_skews_ppm);
    for (int w = 0; w < 2; w++) {
        free(st->res_ranks[w]);
        free(st->res_ns[w]);
    }
    for (int i = 0; st->tests && i < st->ntests; i++) free(st->tests[i].load_blocks);
    free(st->tests);
    free(st);
}

/* Collective: the survey of sampled pairs (pairs.c: every launch's latency floor), and from it
 * the ping-pongs' pair when the plan has a ping-pong; before the tests. */
static mm_status mm__survey_pairs(mm__launch_state *st) {
    int rc = mm_pair_survey_run(st->cfg, st->comm, &st->timer, &st->prov.survey);
    if (mm_mpi_check(&st->err, rc, "measuring the latency of sampled pairs") != MPI_SUCCESS) return MM_E_FAILED;
    st->prov.has_survey = 1;
    int paired = 0;
    for (int i = 0; i < st->cfg->nops; i++) {
        const mm_op *op = mm_op_find(st->cfg->ops[i]);
        if (op && (op->flags & MM_OP_PAIR)) paired = 1;
    }
    if (!paired) return 0;
    mm_pair_choose(st->cfg, &st->prov.survey, &st->prov.pair);
    st->pair[0] = st->prov.pair.pair[0];
    st->pair[1] = st->prov.pair.pair[1];
    return 0;
}

/* Collective: the per-repetition counters (resolved and checked on every rank before the launch,
 * main.c), and a condition when `--mpit-pvars all` found nothing readable. 0, or MM_E_FAILED. */
static mm_status mm__open_counters(mm__launch_state *st) {
    char err[1024] = "";
    st->counters = mm_counters_open(st->cfg, st->comm, &st->timer, st->cfg->nrep, err, sizeof err);
    int ok = st->counters || !err[0];
    if (!ok) mm__launch_say(st, "rank %d: %s", st->rank, err);
    if (!mm_all_ok(st->comm, ok)) return MM_E_FAILED;
    if (st->rank == 0 && st->counters && mm_counters_metrics(st->counters) == 0) {
        mm_condition *c = mm_conditions_entry(&st->conditions, "no-counters", NULL);
        if (c) {
            snprintf(c->message, sizeof c->message,
                     "--mpit-pvars %.200s: the MPI library offers no performance variable that "
                     "can be read here; counters.csv has no rows", st->cfg->counters.mpit_pvars);
            snprintf(c->hint, sizeof c->hint,
                     "mpimeter-bench --list-pvars shows what the library offers; some libraries "
                     "expose variables only when built or configured for it");
        }
    }
    return 0;
}

/* Everything before the first test: modules, provenance, epoch, plan, folder, sync, probes. */
static mm_status mm__start(mm__launch_state *st) {
    const mm_config *cfg = st->cfg;
    if (mm__open_modules(st) != 0) return MM_E_FAILED;
    if (strcmp(cfg->timing.timer, "virtual") == 0) {
        MM_MPI(&st->err, MPI_Gather(&st->timer.virtual_offset_ns, 1, MPI_INT64_T,
                                    st->virtual_offsets_ns, 1, MPI_INT64_T, 0, st->comm));
        MM_MPI(&st->err, MPI_Gather(&st->timer.virtual_skew_ppm, 1, MPI_DOUBLE,
                                    st->virtual_skews_ppm, 1, MPI_DOUBLE, 0, st->comm));
    }
    if (st->rank == 0 && st->ps.vt->needs_global_clock && !cfg->cs.clocksync_auto &&
        strcmp(st->cs.vt->name, "none") == 0) {
        mm_condition *c = mm_conditions_entry(&st->conditions, "clocksync-none-global", NULL);
        if (c) {
            snprintf(c->message, sizeof c->message,
                     "--clocksync none with --procsync %s, which starts repetitions on a global "
                     "clock: correct only when all ranks read one clock (one host)", cfg->procsync);
            snprintf(c->hint, sizeof c->hint,
                     "on several hosts, use a clock sync (e.g. --clocksync hca3)");
        }
    }
    /* The launch epoch: rank 0's local time now, subtracted by everyone from every timestamp. */
    st->epoch_ns = mm_timer_now(&st->timer);
    MM_MPI(&st->err, MPI_Bcast(&st->epoch_ns, 1, MPI_INT64_T, 0, st->comm));
    st->start_local_ns = mm_timer_now(&st->timer);
    mm_provenance_collect(&st->prov, st->comm, !cfg->probe.mpit_from[0]);
    if (st->prov.nomem) {
        if (st->rank == 0) mm__launch_say(st, "out of memory (rank table of %d ranks)", st->nprocs);
        return MM_E_FAILED;
    }

    st->ntests = mm_plan_build(cfg, st->nprocs, st->tests, mm_plan_size(cfg, st->nprocs));
    if (cfg->plan.order_ascending)
        mm_plan_ascending(st->tests, st->ntests);
    else
        mm_plan_shuffle(st->tests, st->ntests, cfg->plan.seed);

    int ok = mm__open_counters(st) == 0 && !mm_mpi_failed(&st->err); /* collective first */
    if (st->rank == 0 && ok) {
        char err[1024] = "";
        ok = mm_outdir_open(&st->out, cfg->out, err, sizeof err) == 0 &&
             mm_counters_open_csv(st->counters, cfg->out, err, sizeof err) == 0;
        if (!ok) mm__launch_say(st, "%s", err);
        else ok = mm__write_meta(st, "running") == 0;
    }
    if (!mm_all_ok(st->comm, ok)) return MM_E_FAILED;
    mm__phase_end(st, MM_PHASE_INIT);
    mm__phase_begin(st, MM_PHASE_SYNC);
    if (mm__sync(st) != 0) return MM_E_FAILED;
    mm__residuals(st, 0);
    if (mm__sync_self_check(st) != 0) return MM_E_FAILED;
    mm__phase_end(st, MM_PHASE_SYNC);
    mm__phase_begin(st, MM_PHASE_PROBES);
    /* each probe's cost on rank 0's clock (phases.probes.steps) */
    double *steps = st->phases.probe_seconds;
    int64_t t0 = mm__monotonic_ns();
    mm_provenance_probe(&st->prov, st->comm, &st->timer);
    int64_t t1 = mm__monotonic_ns();
    mm_provenance_probe_empty(&st->prov, st->comm, &st->timer);
    int64_t t2 = mm__monotonic_ns();
    int64_t copy_bytes = mm_config_copy_probe_bytes_here(cfg);
    mm_provenance_probe_copy(&st->prov, st->comm, &st->timer, copy_bytes);
    int64_t t3 = mm__monotonic_ns();
    if (mm__survey_pairs(st) != 0) return MM_E_FAILED;
    int64_t t4 = mm__monotonic_ns();
    steps[MM_PROBE_CACHELINE] = (double)(t1 - t0) * 1e-9;
    steps[MM_PROBE_EMPTY_REGION] = (double)(t2 - t1) * 1e-9;
    steps[MM_PROBE_COPY] = copy_bytes > 0 ? (double)(t3 - t2) * 1e-9 : -1;
    steps[MM_PROBE_PAIRS] = (double)(t4 - t3) * 1e-9;
    int written = mm__write_meta(st, "running") == 0; /* says why when it cannot */
    mm__phase_end(st, MM_PHASE_PROBES);
    return mm_all_ok(st->comm, written) ? MM_OK : MM_E_FAILED;
}

/* The launch state and its tests' array, or NULL with a message in result. */
static mm__launch_state *mm__state_new(const mm_config *cfg, MPI_Comm comm, mm_launch_result *result) {
    mm__launch_state *st = calloc(1, sizeof *st);
    /* the plan's tests and those --sizes auto may add, not the largest plan's (8192 x 560 B:
     * 4.6 MB on every rank) */
    int launch_nprocs = 1;
    MPI_Comm_size(comm, &launch_nprocs);
    int capacity = mm_plan_capacity(cfg, launch_nprocs);
    mm_test *tests = calloc(capacity > 0 ? (size_t)capacity : 1, sizeof *tests);
    if (!st || !tests) {
        free(st);
        free(tests);
        snprintf(result->messages, sizeof result->messages, "out of memory for the launch's %d tests\n",
                 capacity);
        return NULL;
    }
    st->tests = tests;
    st->max_tests = capacity;
    return st;
}

mm_status mm_launch_run(const mm_config *cfg, MPI_Comm comm, mm_launch_result *result) {
    mm_launch_result caller = *result; /* the caller's inputs and callbacks, kept */
    memset(result, 0, sizeof *result);
    result->main_entered_ns = caller.main_entered_ns;
    result->on_message = caller.on_message;
    result->on_message_ctx = caller.on_message_ctx;
    result->on_test = caller.on_test;
    result->on_test_ctx = caller.on_test_ctx;
    /* Refused before anything is allocated or written: buffers that cannot fit in memory. */
    char why[2048] = "";
    if (mm_memory_check(cfg, comm, why, sizeof why) != 0) {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        if (rank == 0) snprintf(result->messages, sizeof result->messages, "%s\n", why);
        return MM_E_INPUT;
    }
    mm__launch_state *st = mm__state_new(cfg, comm, result);
    if (!st) return MM_E_NOMEM;
    st->cfg = cfg;
    st->result = result;
    st->comm = comm;
    st->phase_zero_ns = result->main_entered_ns > 0 ? result->main_entered_ns : mm__monotonic_ns();
    for (int i = 0; i < MM_NPHASES; i++) st->phases.start_s[i] = st->phases.seconds[i] = -1;
    for (int k = 0; k < MM_NPROBE_STEPS; k++) st->phases.probe_seconds[k] = -1;
    st->phases.start_s[MM_PHASE_INIT] = 0; /* from main's entry: MPI_Init is in it */
    MM_MPI(&st->err, MPI_Comm_rank(comm, &st->rank));
    MM_MPI(&st->err, MPI_Comm_size(comm, &st->nprocs));
    st->nres[0] = st->nres[1] = -1;
    mm_status rc = MM_E_FAILED;
    if (!mm_all_ok(comm, mm__alloc_rank0(st) == 0)) {
        if (st->rank == 0) mm__launch_say(st, "out of memory for the tables of %d ranks", st->nprocs);
        goto out;
    }
    if (mm__start(st) != 0) {
        mm__say_mpi_failure(st, "before the tests");
        goto out;
    }

    mm__phase_begin(st, MM_PHASE_TESTS);
    rc = mm__run_tests(st);
    mm__phase_end(st, MM_PHASE_TESTS);

    mm__phase_begin(st, MM_PHASE_WRITE);
    mm__residuals(st, 1);
    /* With re-syncs on, a last sync at the end brackets every timestamp between two sync
     * points, so the after-the-fact clock interpolates instead of extrapolating (docs/ALGORITHMS.md, "After the fact":
     * offsets taken at initialization and finalization, as trace tools do). */
    if (rc == 0 && mm_config_effective_resync_s(cfg, mm_clocksync_model_kind(&st->cs)) > 0 &&
        mm__sync(st) != 0)
        rc = MM_E_FAILED;
    mm_provenance_finish(&st->prov, comm);
    mm__phase_end(st, MM_PHASE_WRITE); /* meta.json's own last write follows: not in it */
    if (mm__write_meta(st, rc == MM_OK ? "complete" : "failed") != 0) rc = MM_E_FAILED;
    if (st->rank == 0) mm__say_mpi_failure(st, NULL);
    if (st->rank == 0 && rc == 0) result->ntests = st->ntests;
out:
    if (rc != 0 && st->rank == 0 && st->out.raw) mm__write_meta(st, "failed");
    if (st->rank == 0) mm_outdir_close(&st->out);
    mm_counters_close(st->counters);
    mm_procsync_close(&st->ps);
    mm_clocksync_close(&st->cs);
    mm_timer_close(&st->timer);
    mm_provenance_free(&st->prov);
    mm__free_state(st);
    return rc;
}
