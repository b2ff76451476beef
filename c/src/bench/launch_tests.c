/* SPDX-License-Identifier: BSD-3-Clause */
/* launch_tests.c — the tests of one launch: for each test of the shuffled plan, a re-sync when
 * due, the op's buffers, the measurement loop (loop.c), the rows gathered to rank 0 and appended
 * to raw.csv, and meta.json rewritten — so a launch killed midway leaves a folder that says which
 * tests finished.
 *
 * Failures (docs/FORMAT.md, tests[].error): an MPI call of a test that returns an error, buffers
 * that cannot be allocated, or a re-sync that fails inside the test (harmonize) mark that test
 * failed, with the library's error string, and the launch goes on with the next test — when
 * every rank can agree on it (one allreduce). The lowest failing rank tells the others what went
 * wrong, so meta.json (written by rank 0) names the failure of whichever rank saw it. A failed
 * test writes no rows. A re-sync between tests that fails ends the launch (every later test
 * would rest on a clock nobody trusts), with a condition saying so. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch_internal.h"
#include "mm_error.h"
#include "mm_runtime.h"

/* A condition's list of tests: item appended at used while it fits, else ", ..." once; nothing
 * goes after the ellipsis. */
static void mm__append_item(char *list, size_t cap, size_t used, const char *item) {
    if (strstr(list, ", ...") != NULL) return;
    if (used + strlen(item) + 8 < cap) snprintf(list + used, cap - used, "%s", item);
    else snprintf(list + used, cap - used, ", ...");
}

/* Rank 0: what the conditions about the launch's tests have counted so far. */
typedef struct mm__tally {
    int nbudget_ended;        /* tests ended by the time budget */
    char budget_tests[256];   /* the first of them, "allreduce 8 (1 of 5), ..." */
    int nswitched;            /* tests whose process sync switched (switch.c) */
    char switched_tests[256]; /* the first of them, "allreduce 8 -> barrier from repetition 40, ..." */
    int64_t overwrite_over_window_ns; /* the longest --cold-cache overwrite beyond a given window */
    int nfinished;            /* tests ended so far (complete or failed), for on_test */
} mm__tally;

/* What every test of a launch uses, allocated once: the repetition arrays, the gather space, the
 * --cold-cache buffer and, with --nrep auto or --sizes auto, rank 0's judging space; the
 * communicators of --nprocs, and rank 0's tally. */
typedef struct mm__space {
    mm_rep_buffers b;
    mm_gather_space g;
    mm_decide d;
    int judging; /* d is allocated */
    void *cold;
    double resync_s;
    int has_global;
    double tests_start_s; /* when the first test began (mm__seconds_since): the budgets' origin */
    mm__subcomms *subs;
    mm__tally tally;
    mm_other_cpu *other_cpu; /* the per-block load of the tests on the launch's communicator */
} mm__space;

/* Rank 0: a test the roundtime/harmonize time budget ended before --nrep gets counted in one
 * condition (rewritten as more such tests come), so that nothing reads the launch as having
 * measured what was asked. */
static void mm__note_budget_ended(mm__launch_state *st, mm__tally *n, const mm_test *t) {
    if (st->rank != 0 || !t->ended_by_budget) return;
    mm_condition *c = mm_conditions_entry(&st->conditions, "budget-ended-tests", NULL);
    if (!c) return;
    n->nbudget_ended++;
    size_t used = strlen(n->budget_tests);
    char item[96];
    snprintf(item, sizeof item, "%s%s %" PRId64 " (%ld of %ld)", used ? ", " : "", t->op->name,
             t->size, t->nrep, t->nrep_asked);
    mm__append_item(n->budget_tests, sizeof n->budget_tests, used, item);
    snprintf(c->message, sizeof c->message,
             "%d test(s) ended by a time budget (the test's share of --launch-budget-s %g, or "
             "--roundtime-budget-s %g for roundtime/harmonize) before --nrep %d repetitions: %s; "
             "they are incomplete and rest on fewer repetitions than asked",
             n->nbudget_ended, st->cfg->ps.launch_budget_s, st->cfg->ps.roundtime_budget_s,
             st->cfg->nrep, n->budget_tests);
    snprintf(c->hint, sizeof c->hint,
             "raise --launch-budget-s (or --roundtime-budget-s), lower --nrep, or run fewer "
             "tests per launch");
}

/* Rank 0: the tests whose process sync gave up (switch.c) are counted in one condition,
 * rewritten as more come, naming the first few: their repetitions mix methods, which
 * tests[].procsync_switches details. */
static void mm__note_switched(mm__launch_state *st, mm__tally *n, const mm_test *t) {
    if (st->rank != 0 || t->nswitches == 0) return;
    /* a round trip run back to back by the window's policy (switch.c) did not give up */
    if (strcmp(t->switches[t->nswitches - 1].why, MM_SWITCH_ROUND_TRIP) == 0) return;
    mm_condition *c = mm_conditions_entry(&st->conditions, "procsync-switched", NULL);
    if (!c) return;
    n->nswitched++;
    const mm_switch_record *last = &t->switches[t->nswitches - 1];
    size_t used = strlen(n->switched_tests);
    char item[128];
    snprintf(item, sizeof item, "%s%s %" PRId64 " -> %s from repetition %ld", used ? ", " : "",
             t->op->name, t->size, last->to, last->from_rep);
    mm__append_item(n->switched_tests, sizeof n->switched_tests, used, item);
    snprintf(c->message, sizeof c->message,
             "%d test(s) went on with another start method after their late fraction passed "
             "--switch-late-fraction %g (the window at its cap of --window-growth-max %d pilot "
             "windows, or late twice in a row): %s",
             n->nswitched, st->cfg->ps.switch_late_fraction, st->cfg->ps.window_growth_max,
             n->switched_tests);
    snprintf(c->hint, sizeof c->hint,
             "the machine did not run every rank at its planned start (load, or ranks sharing "
             "CPUs); compare such tests only with tests measured by the same method "
             "(tests[].procsync_switches), or run on a quieter machine");
}

/* Collective on comm (the test's): how many of the test's recorded repetitions are valid on
 * every rank. */
static long mm__valid_everywhere(mm__launch_state *st, MPI_Comm comm, const mm_rep_buffers *b, long nrep) {
    long mine = 0, most = 0;
    for (long i = 0; i < nrep; i++) mine += b->invalid[i] != 0;
    /* a repetition invalid on any rank is invalid: the valid ones are nrep minus at least the
     * largest count of any rank; exactly, with the flags or-ed over ranks */
    int32_t *any = malloc((size_t)(nrep > 0 ? nrep : 1) * sizeof *any);
    if (!any) {
        MM_MPI(&st->err, MPI_Allreduce(&mine, &most, 1, MPI_LONG, MPI_MAX, comm));
        return nrep - most;
    }
    MM_MPI(&st->err, MPI_Allreduce(b->invalid, any, (int)nrep, MPI_INT32_T, MPI_BOR, comm));
    long valid = 0;
    for (long i = 0; i < nrep; i++) valid += any[i] == 0;
    free(any);
    return valid;
}

/* Rank 0: a window given with --window-us is not sized from a pilot, so it may leave no room for
 * the --cold-cache overwrite after each repetition; then nearly every repetition starts late.
 * The window process sync times the overwrite before each test (ps.between_reps_over_window_ns);
 * one condition, with the longest time seen, gives the invalid repetitions their reason. */
static void mm__note_overwrite_beyond_window(mm__launch_state *st, mm__tally *n) {
    int64_t took_ns = st->ps.between_reps_over_window_ns;
    if (st->rank != 0 || took_ns <= n->overwrite_over_window_ns) return;
    mm_condition *c = mm_conditions_entry(&st->conditions, "cold-cache-beyond-window", NULL);
    if (!c) return;
    n->overwrite_over_window_ns = took_ns;
    snprintf(c->message, sizeof c->message,
             "the --cold-cache overwrite of %" PRId64 " bytes after each repetition takes up to "
             "%.1f us, longer than --window-us %g: most repetitions start late (invalid)",
             st->cfg->measure.cold_cache_bytes, (double)took_ns * 1e-3, st->cfg->ps.window_us);
    snprintf(c->hint, sizeof c->hint,
             "raise --window-us above it or use --window-us auto (its pilot leaves room for the "
             "overwrite)");
}

/* Fills the arguments an operation needs; the op's setup allocates its buffers. */
static int mm__prepare_args(const mm__launch_state *st, const mm_test *t, MPI_Comm comm,
                            mm_op_args *args, mm_nbc *nbc) {
    memset(args, 0, sizeof *args);
    memset(nbc, 0, sizeof *nbc);
    if (mm_op_is_nbc(t->op)) args->nbc = nbc;
    args->comm = comm; /* the launch's, or the sub-communicator of its first t->nprocs ranks */
    args->rank = st->rank; /* the same rank there: subcomm.c keeps the order */
    args->nprocs = t->nprocs;
    args->root = t->root >= 0 ? t->root : 0; /* unrooted ops' rooted steps use rank 0 */
    mm_datatype_lookup(st->cfg->measure.datatype, &args->datatype, &args->type_size);
    mm_reduce_op_lookup(st->cfg->measure.reduce_op, &args->reduce_op);
    args->size = t->size;
    args->count = (t->op->flags & MM_OP_SIZE_IS_DURATION) ? 0 : (int)(t->size / args->type_size);
    args->timer = &st->timer;
    args->pair[0] = st->pair[0];
    args->pair[1] = st->pair[1];
    args->rma = (mm_rma_params){st->cfg->rma.sync, st->cfg->rma.window, st->cfg->rma.burst,
                                st->cfg->rma.window_bytes};
    args->workpieces = t->workpieces;
    args->cart_ndims = st->cfg->topo.cart_ndims;
    memcpy(args->cart_dims, st->cfg->topo.cart_dims, sizeof args->cart_dims);
    args->graph_text = st->cfg->topo.graph.nodes > 0 ? st->cfg->topo.graph_text : NULL;
    int rc = t->op->setup(args);
    if (rc == 0 && strcmp(st->cfg->inject.error_op, t->op->name) == 0)
        mm_op_inject_error(t->op, args);
    mm_config_inject_fault(st->cfg, t->op->name, t->size, st->rank);
    return rc;
}

/* Collective: did the test fail on some rank? Then every rank gets the failure of the lowest
 * failing rank (code and message) in t, and 1 is returned. 0 when it held everywhere; -1 when the
 * ranks cannot even agree (the launch must end). */
static int mm__agree_on_failure(mm__launch_state *st, mm_test *t, const char *code,
                                const char *message) {
    int mine = code ? st->rank : st->nprocs, lowest = st->nprocs;
    if (MM_MPI(&st->err, MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, st->comm)) !=
        MPI_SUCCESS)
        return MM_E_FAILED;
    if (lowest == st->nprocs) return 0;
    char buf[sizeof t->error_code + sizeof t->error_message];
    memset(buf, 0, sizeof buf);
    if (st->rank == lowest) {
        snprintf(buf, sizeof t->error_code, "%s", code);
        snprintf(buf + sizeof t->error_code, sizeof t->error_message, "%s", message);
    }
    if (MM_MPI(&st->err, MPI_Bcast(buf, (int)sizeof buf, MPI_CHAR, lowest, st->comm)) !=
        MPI_SUCCESS)
        return MM_E_FAILED;
    memcpy(t->error_code, buf, sizeof t->error_code);
    memcpy(t->error_message, buf + sizeof t->error_code, sizeof t->error_message);
    t->error_code[sizeof t->error_code - 1] = '\0';
    t->error_message[sizeof t->error_message - 1] = '\0';
    return 1;
}

/* What may give a test that recorded no valid repetition some: a larger time budget helps a test
 * its budget ended, not one --nrep ended; a window of --window-us stays as given, and the auto
 * window grows and changes start method only between batches (docs/ALGORITHMS.md), so a test of
 * one late batch needs more repetitions. */
static const char *mm__no_valid_remedy(const mm_config *cfg, const mm_test *t) {
    if (t->ended_by_budget) return "a larger --launch-budget-s (--roundtime-budget-s with roundtime or harmonize)";
    if (cfg->ps.window_us > 0) return "a larger --window-us (or auto, which adapts it)";
    return "a larger --nrep (the window adapts between batches of repetitions)";
}

/* Rank 0: a failed test becomes a condition too, so that the analysis shows it. */
static void mm__note_failed(mm__launch_state *st, mm_test *t) {
    t->status = MM_TEST_FAILED;
    if (st->rank != 0) return;
    char where[96];
    snprintf(where, sizeof where, "test %d (%s %" PRId64 ")", t->index, t->op->name, t->size);
    mm_condition *c = mm_conditions_entry(&st->conditions, "test-failed", where);
    if (!c) return;
    snprintf(c->message, sizeof c->message, "%s %" PRId64 " failed (%s): %s; it has no rows",
             t->op->name, t->size, t->error_code, t->error_message);
    if (strcmp(t->error_code, "no-valid-repetitions") == 0)
        snprintf(c->hint, sizeof c->hint, "no rank was running at its planned starts: run on a quieter machine, "
                 "at most one rank per CPU, with --procsync roundtime or barrier, or with %s",
                 mm__no_valid_remedy(st->cfg, t));
    else
        snprintf(c->hint, sizeof c->hint, "%s",
                 strcmp(t->error_code, "alloc-failed") == 0
                     ? "lower the size or the number of ranks per host"
                     : "run the test alone to see whether the library refuses these arguments; the "
                       "other tests of the launch are unaffected");
}

/* Collective: gathers the test's rows (over the test's communicator: the ranks outside have
 * none), writes them and meta.json. 0, or MM_E_FAILED when writing failed. */
static mm_status mm__record_test(mm__launch_state *st, mm_test *t, const mm_rep_buffers *b,
                                 mm_gather_space *g, int has_global, MPI_Comm comm, int inside) {
    mm_gather_request q = {.comm = comm, .rank = st->rank, .nprocs = t->nprocs,
                           .raw = st->rank == 0 ? st->out.raw : NULL, .test = t,
                           .nrep = t->nrep, /* the same on every rank */
                           .nbc = mm_op_is_nbc(t->op), .has_global = has_global,
                           .reduced = st->cfg->output.raw_reduced, .epoch_ns = st->epoch_ns,
                           .timed_rank = mm_rep_timed_rank((t->op->flags & MM_OP_ROUND_TRIP) != 0, st->pair[0])};
    char why[256] = "";
    q.why = why;
    q.why_len = sizeof why;
    long ninvalid = 0;
    int written = !inside || mm_gather_write_test(&q, b, g, &ninvalid, &st->err) == 0;
    if (why[0]) mm__launch_say(st, "rank %d: %s", st->rank, why);
    /* the counters' rows after raw.csv's, before meta.json says the test is finished */
    written = mm_counters_write_test(st->counters, t, t->nrep, st->cfg->output.raw_reduced, &st->err) == 0 &&
              written;
    int write_ok = written && !mm_mpi_failed(&st->err);
    /* a budget that ended the test before --nrep leaves it incomplete (its rows are valid) */
    int status = t->ended_by_budget && t->nrep < t->nrep_asked ? MM_TEST_INCOMPLETE
                                                                : MM_TEST_COMPLETE;
    if (st->rank == 0 && !written) mm__launch_say(st, "cannot write to %s", st->cfg->out);
    if (st->rank == 0 && write_ok) {
        t->invalid = ninvalid;
        t->status = status;
        write_ok = mm__write_meta(st, "running") == 0; /* says why when it cannot */
    }
    t->status = status;
    return mm_all_ok(st->comm, write_ok) ? 0 : MM_E_FAILED;
}

/* Rank 0: a finished test's facts to the caller's on_test (app/progress.c prints them). */
static void mm__tell_finished(mm__launch_state *st, const mm_test *t, mm__space *sp) {
    mm_launch_result *r = st->result;
    if (st->rank != 0 || !r->on_test) return;
    sp->tally.nfinished++;
    /* a test its time budget ended before --nrep (incomplete) has valid rows too */
    int complete = t->status == MM_TEST_COMPLETE || t->status == MM_TEST_INCOMPLETE;
    /* the method the test ended with (a round trip runs with none from its first repetition) */
    const mm_switch_record *last = t->nswitches > 0 ? &t->switches[t->nswitches - 1] : NULL;
    const mm_procsync_vtable *ended = last ? mm_procsync_find(last->to) : NULL;
    int local = !sp->has_global || (last && last->from_rep == 0 && ended && !ended->has_planned_start);
    /* a --nprocs test's run times are not collected (mm__measure_one): its valid count is the
     * one meta.json records, and its median stays NaN (the analysis computes it) */
    long valid = t->nprocs < st->nprocs ? t->nrep - t->invalid : t->valid_used;
    mm_test_facts facts = {.finished = sp->tally.nfinished, .planned = st->ntests, .test = t,
                           .valid = complete ? valid : 0,
                           .median_ns = complete ? t->median_ns : NAN,
                           .run_time = local ? "local clock" : "global clock",
                           .procsync = last ? last->to : st->ps.vt->name};
    r->on_test(&facts, r->on_test_ctx);
}

/* Collective: a re-sync when the last sync is too old (rank 0 decides for all), then the test's
 * start and its share of --launch-budget-s. 0, or MM_E_FAILED when the launch cannot go on. */
static mm_status mm__begin_one(mm__launch_state *st, mm_test *t, const mm__space *sp) {
    const mm_config *cfg = st->cfg;
    int resync = sp->resync_s > 0 && st->rank == 0 &&
                 (double)(mm_timer_now(&st->timer) - st->cs.last_sync_local_ns) * 1e-9 > sp->resync_s;
    if (MM_MPI(&st->err, MPI_Bcast(&resync, 1, MPI_INT, 0, st->comm)) != MPI_SUCCESS) return MM_E_FAILED;
    if (resync && mm__sync(st) != 0) return MM_E_FAILED;

    t->status = MM_TEST_RUNNING;
    t->started_s = mm__seconds_since(st);
    t->nswitches = 0;
    /* the test's budget: what is left of --launch-budget-s over the tests left (this one
     * included), at least a tenth of an equal share, so that a slow test cannot starve the
     * rest and the launch goes on to the next test (rank 0 decides, on its clock) */
    int left = st->ntests - t->index > 0 ? st->ntests - t->index : 1;
    double share = cfg->ps.launch_budget_s / (st->ntests > 0 ? st->ntests : 1);
    double rest = cfg->ps.launch_budget_s - (t->started_s - sp->tests_start_s);
    t->budget_s = rest / left > share / 10 ? rest / left : share / 10;
    t->deadline_local_ns = st->rank == 0 ? mm_timer_now(&st->timer) + (int64_t)(t->budget_s * 1e9)
                                         : 0;
    return 0;
}

/* One test as its steps see it: where it runs, the op's arguments, and what went wrong on this
 * rank (code NULL: nothing). */
typedef struct mm__one {
    mm_test *t;
    MPI_Comm comm;
    mm_procsync *ps;
    int inside; /* this rank is in the test's communicator */
    int sub;    /* --nprocs: the test runs on the first t->nprocs ranks only (subcomm.c) */
    mm_op_args args;
    mm_nbc nbc;
    const char *code;
    char message[sizeof ((mm_test *)0)->error_message];
} mm__one;

/* This rank's part before the loop: the op's buffers and the counters; a failure in one->code. */
static void mm__prepare_one(const mm__launch_state *st, mm__one *one) {
    const mm_test *t = one->t;
    char why[256] = "";
    memset(&one->args, 0, sizeof one->args);
    if (one->inside && mm__prepare_args(st, t, one->comm, &one->args, &one->nbc) != 0) {
        one->code = "alloc-failed";
        /* the setup's own words: what it could not allocate or which call failed (mm_ops.h) */
        snprintf(one->message, sizeof one->message, "the setup of %s at %" PRId64 " bytes on rank %d "
                 "failed: %s", t->op->name, t->size, st->rank,
                 one->args.error[0] ? one->args.error : "cannot allocate the buffers");
    } else if (mm_counters_begin_test(st->counters, why, sizeof why) != 0) {
        one->code = "counters-failed";
        snprintf(one->message, sizeof one->message, "rank %d: %s", st->rank, why);
    }
}

/* t's failure when no repetition was valid on every rank. */
static void mm__no_valid_repetition(const mm_config *cfg, mm_test *t) {
    snprintf(t->error_code, sizeof t->error_code, "no-valid-repetitions");
    snprintf(t->error_message, sizeof t->error_message,
             "no valid repetition among %ld recorded (%ld redone)%s, ended by %s with "
             "start method %s", t->nrep, t->redone,
             t->nrep == 0 ? "" : ": in every one some rank started late or overran",
             t->ended_by_budget ? "its time budget" : "--nrep",
             t->nswitches ? t->switches[t->nswitches - 1].to : cfg->procsync);
}

/* Collective, once every rank is ready: --subtract-overhead's probe, the loop (the ranks outside
 * a --nprocs test idle at a barrier), and the agreement on its failure or on its having no valid
 * repetition. 0 when the test held, 1 when it failed (t says why), -1 when the ranks cannot
 * agree. */
static int mm__measure_one(mm__launch_state *st, mm__one *one, mm__space *sp) {
    const mm_config *cfg = st->cfg;
    mm_test *t = one->t;
    mm_mpi_error test_err;
    mm_mpi_error_clear(&test_err);
    /* rank 0's collection of run times (decide.c) runs on the launch's communicator: not on a
     * sub-communicator test (its median is then not known here: NaN) */
    if (one->sub) t->median_ns = NAN;
    /* --subtract-overhead: what one raw.csv row carries of the empty region (a row of --batch N
     * holds one call's share of the N calls' region) */
    if (one->inside && cfg->measure.subtract_overhead)
        t->overhead_ns = mm__test_overhead_ns(one->comm, &st->timer, &test_err);
    if (t->overhead_ns > 0) t->overhead_ns /= cfg->measure.batch;
    const mm_test_run run = {.cfg = cfg, .args = &one->args, .ps = one->ps, .b = &sp->b,
                             .d = sp->judging && !one->sub ? &sp->d : NULL, .cold_cache = sp->cold,
                             .cold_cache_bytes = (size_t)cfg->measure.cold_cache_bytes,
                             /* not on a --nprocs sub-communicator: the ranks outside it, idle
                              * at a barrier on the same machine, would count as other load */
                             .other_cpu = one->sub ? NULL : sp->other_cpu};
    if (one->inside && !mm_mpi_failed(&test_err))
        (mm_op_is_nbc(t->op) ? mm_bench_run_nbc_test : mm_bench_run_test)(&run, t, &test_err);
    /* after the test's timed regions, on its buffers: OSU's and IMB's quantity beside it */
    if (one->inside && !mm_mpi_failed(&test_err) && mm_back_to_back_applies(cfg, t->op))
        mm_bench_run_back_to_back(&run, t, &test_err);
    if (one->sub) MM_MPI(&test_err, MPI_Barrier(st->comm)); /* the ranks outside idle here */
    if (mm_mpi_failed(&test_err)) {
        one->code = "mpi-error";
        mm_mpi_error_format(&test_err, one->message, sizeof one->message);
    } else if (one->inside && one->ps->resync_failures > 0) {
        one->code = "resync-failed";
        snprintf(one->message, sizeof one->message, "%ld of %ld clock re-syncs inside the test "
                 "failed; the last good clock model was kept", one->ps->resync_failures,
                 one->ps->nresyncs);
    }
    int agreed = mm__agree_on_failure(st, t, one->code, one->message);
    /* every rank of the test got this far with the same nrep: whether any repetition is valid
     * (rank 0, always inside, tells the ranks outside) */
    long valid = 0;
    if (agreed == 0 && one->inside) valid = mm__valid_everywhere(st, one->comm, &sp->b, t->nrep);
    if (agreed == 0 && one->sub) MM_MPI(&st->err, MPI_Bcast(&valid, 1, MPI_LONG, 0, st->comm));
    if (agreed == 0 && valid == 0) {
        agreed = 1;
        mm__no_valid_repetition(cfg, t);
    }
    return agreed;
}

/* Collective: the op's check of what its calls wrote (one-sided ops), once every rank's calls
 * held; returns as mm__agree_on_failure. */
static int mm__verify_one(mm__launch_state *st, mm__one *one) {
    mm_status checked = one->t->op->verify(&one->args, one->message, sizeof one->message);
    one->code = checked == MM_E_MPI ? "mpi-error" : checked != MM_OK ? "verify-failed" : NULL;
    return mm__agree_on_failure(st, one->t, one->code, one->message);
}

/* Collective: one test from start to end: a re-sync when due, the op's buffers, the loop, the
 * agreement on failure, the rows and meta.json. 0, or MM_E_FAILED when the launch cannot go on. */
static mm_status mm__run_one(mm__launch_state *st, mm_test *t, mm__space *sp) {
    mm_cpu_track_note(&st->prov.cpu);
    if (mm__begin_one(st, t, sp) != 0) return MM_E_FAILED;
    mm__one one = {.t = t};
    one.inside = mm__test_comm(st, sp->subs, t, &one.comm, &one.ps);
    one.sub = t->nprocs < st->nprocs;
    mm__prepare_one(st, &one);
    int agreed = mm__agree_on_failure(st, t, one.code, one.message);
    if (agreed == 0) agreed = mm__measure_one(st, &one, sp);
    if (agreed == 0 && t->op->verify) agreed = mm__verify_one(st, &one);
    mm_counters_end_test(st->counters);
    if (one.inside) t->op->teardown(&one.args);
    t->duration_s = mm__seconds_since(st) - t->started_s;
    if (agreed < 0) return MM_E_FAILED;
    mm__note_switched(st, &sp->tally, t);
    /* also when the test failed: an overwrite beyond a given window is then the reason why */
    mm__note_overwrite_beyond_window(st, &sp->tally);
    if (agreed > 0) {
        mm__note_failed(st, t);
        int written = mm__write_meta(st, "running") == 0; /* says why when it cannot */
        mm__tell_finished(st, t, sp);
        return mm_all_ok(st->comm, written) ? MM_OK : MM_E_FAILED;
    }
    mm__note_budget_ended(st, &sp->tally, t);
    mm_status rc = mm__record_test(st, t, &sp->b, &sp->g, sp->has_global, one.comm, one.inside);
    if (rc == MM_OK) mm__tell_finished(st, t, sp);
    return rc;
}

mm_status mm__run_tests(mm__launch_state *st) {
    const mm_config *cfg = st->cfg;
    long nrep = cfg->nrep; /* with --nrep auto: --nrep-max, the most a test records */
    mm__space sp;
    memset(&sp, 0, sizeof sp);
    sp.has_global = strcmp(st->cs.vt->name, "none") != 0 || st->ps.vt->needs_global_clock;
    sp.resync_s = mm_config_effective_resync_s(cfg, mm_clocksync_model_kind(&st->cs));
    /* --progress shows each test's median: rank 0 collects the run times as for a rule */
    sp.judging = cfg->adaptive.nrep_rule != MM_NREP_FIXED || cfg->adaptive.sizes_auto || cfg->output.progress == MM_PROGRESS_ON;
    int ok = mm_rep_buffers_alloc(&sp.b, nrep) == 0;
    sp.b.counters = st->counters;
    ok = mm_gather_space_alloc(&sp.g, nrep, st->rank, st->nprocs, cfg->output.raw_reduced) == 0 && ok;
    /* a decision reduces --nrep-every repetitions at a time; the final collection of a fixed
     * --nrep (for --sizes auto) goes in chunks of the same bound */
    long chunk = cfg->adaptive.nrep_rule != MM_NREP_FIXED ? cfg->adaptive.nrep_every : 256;
    if (sp.judging) ok = mm_decide_alloc(&sp.d, nrep, chunk, sp.has_global, st->comm) == 0 && ok;
    if (cfg->measure.cold_cache_bytes > 0) {
        sp.cold = calloc(1, (size_t)cfg->measure.cold_cache_bytes);
        ok = ok && sp.cold;
    }
    long blocks = (cfg->measure.warmup + nrep) / mm_window_batch_length(cfg->measure.warmup, nrep) + 2;
    ok = mm_other_cpu_open(&sp.other_cpu, st->comm, blocks, &st->err) == 0 && ok;
    mm_status rc = MM_OK;
    sp.tests_start_s = mm__seconds_since(st); /* --launch-budget-s counts from here */
    if (!mm_all_ok(st->comm, ok)) {
        if (st->rank == 0) mm__launch_say(st, "out of memory for %ld repetitions", nrep);
        rc = MM_E_FAILED;
        goto done;
    }
    if (mm__subcomms_open(st, &sp.subs) != 0) {
        if (st->rank == 0) mm__launch_say(st, "cannot create the sub-communicators of --nprocs");
        rc = MM_E_FAILED;
        goto done;
    }
    for (int i = 0; i < st->ntests && rc == MM_OK; i++) rc = mm__run_one(st, &st->tests[i], &sp);
    /* --sizes auto: rounds of added sizes until every operation is refined (refine.c) */
    for (int round = 1; cfg->adaptive.sizes_auto && rc == MM_OK; round++) {
        int first = st->ntests, added = mm__refine_round(st, round);
        if (added < 0) rc = MM_E_FAILED;
        if (added <= 0) break;
        for (int i = first; i < st->ntests && rc == MM_OK; i++) rc = mm__run_one(st, &st->tests[i], &sp);
    }
    mm_cpu_track_note(&st->prov.cpu);
done:
    mm__subcomms_close(sp.subs);
    mm_rep_buffers_free(&sp.b);
    mm_gather_space_free(&sp.g);
    if (sp.judging) mm_decide_free(&sp.d);
    free(sp.cold);
    mm_other_cpu_close(sp.other_cpu);
    return rc;
}
