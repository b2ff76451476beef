/* SPDX-License-Identifier: BSD-3-Clause */
/* launch_state.c — what the steps of a launch share (launch_internal.h): the clock on which it
 * counts its seconds, one clock sync with its models gathered and its log written, and meta.json
 * rendered from the launch state and written atomically. Called by launch.c, launch_tests.c and
 * refine.c; calls nothing of theirs. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "launch_internal.h"
#include "mm_error.h"

/* The phases' clock is CLOCK_MONOTONIC whatever --timer is: a wall time, comparable with the
 * launcher's (a virtual or TSC timer would not be). */
int64_t mm__monotonic_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void mm__phase_begin(mm__launch_state *st, int phase) {
    if (phase < 0 || phase >= MM_NPHASES) return;
    st->phases.start_s[phase] = (double)(mm__monotonic_ns() - st->phase_zero_ns) * 1e-9;
    st->phases.seconds[phase] = -1;
}

void mm__phase_end(mm__launch_state *st, int phase) {
    if (phase < 0 || phase >= MM_NPHASES || st->phases.start_s[phase] < 0) return;
    double now_s = (double)(mm__monotonic_ns() - st->phase_zero_ns) * 1e-9;
    st->phases.seconds[phase] = now_s - st->phases.start_s[phase];
}

double mm__seconds_since(const mm__launch_state *st) {
    return (double)(mm_timer_now(&st->timer) - st->start_local_ns) * 1e-9;
}

mm_status mm__write_meta(mm__launch_state *st, const char *status) {
    if (st->rank != 0) return 0;
    mm_launch l = {0};
    l.cfg = st->cfg;
    l.nprocs = st->nprocs;
    l.status = status;
    l.timer = &st->timer;
    mm_sync_facts sync;
    mm_clocksync_facts_of(st->cfg, &st->cs, &sync);
    sync.chosen = st->clocksync_chosen;
    l.sync = &sync;
    l.procsync_method = st->ps.vt ? st->ps.vt->name : NULL;
    l.procsync_scheme = st->ps.vt ? st->ps.vt->scheme : NULL;
    mm_op_facts ops[MM_MAX_OPS];
    l.ops = ops;
    l.nops = mm_op_facts_of_config(st->cfg, st->nprocs, ops, MM_MAX_OPS);
    l.prov = &st->prov;
    l.tests = st->tests;
    l.ntests = st->ntests;
    l.epoch_local_ns_rank0 = st->epoch_ns;
    l.nresidual_start = st->nres[0];
    l.nresidual_end = st->nres[1];
    l.residual_ranks_start = st->res_ranks[0];
    l.residual_ranks_end = st->res_ranks[1];
    l.residual_start_ns = st->res_ns[0];
    l.residual_end_ns = st->res_ns[1];
    l.models = st->models;
    l.parents = st->parents;
    l.virtual_offsets_ns = st->virtual_offsets_ns;
    l.virtual_skews_ppm = st->virtual_skews_ppm;
    l.conditions = &st->conditions;
    l.refine = st->cfg->adaptive.sizes_auto ? st->refine : NULL;
    l.nrefine = st->nrefine;
    mm_buf counters = {0};
    mm_counters_meta_json(st->counters, &counters);
    l.counters_json = counters.len ? counters.data : NULL;
    l.phases = &st->phases;
    mm_buf meta = {0};
    mm_meta_render(&l, &meta);
    mm_buf_free(&counters);
    /* while running: a checkpoint; complete or failed: the launch's one durable write, the rows
     * it lists on disk first (docs/FORMAT.md, "A launch folder") */
    int final = strcmp(status, "running") != 0;
    mm_status synced = final ? mm_counters_sync(st->counters) : MM_OK;
    if (synced != MM_OK && !st->meta_unwritable++)
        mm__launch_say(st, "cannot write %s/%s: %s", st->out.path, MM_COUNTERS_FILE, strerror(errno));
    mm_status rc = mm_outdir_write_meta(&st->out, &meta, final ? MM_META_FINAL : MM_META_CHECKPOINT);
    int saved = errno;
    mm_buf_free(&meta);
    if (rc != MM_OK && !st->meta_unwritable++) /* once: the launch's last write tries again */
        mm__launch_say(st, "cannot write %s/meta.json: %s", st->out.path, strerror(saved));
    return rc != MM_OK ? rc : synced;
}

/* Collective: gathers each rank's clock model and parent (after every sync). */
static mm_status mm__gather_models(mm__launch_state *st) {
    typedef struct {
        int64_t anchor_ns; /* exactly, not through a double */
        double slope, intercept_ns;
        int parent;
    } row;
    row mine = {st->cs.model.anchor_ns, st->cs.model.slope, st->cs.model.intercept_ns, st->cs.parent};
    row *all = st->rank == 0 ? malloc((size_t)st->nprocs * sizeof *all) : NULL;
    if (!mm_all_ok(st->comm, st->rank != 0 || all)) {
        if (st->rank == 0)
            mm__launch_say(st, "out of memory for the clock models of %d ranks (%zu bytes)", st->nprocs,
                           (size_t)st->nprocs * sizeof *all);
        free(all);
        return MM_E_FAILED;
    }
    int rc = MM_MPI(&st->err, MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine,
                                         MPI_BYTE, 0, st->comm));
    if (rc == MPI_SUCCESS && st->rank == 0) {
        for (int r = 0; r < st->nprocs; r++) {
            st->models[r].anchor_ns = all[r].anchor_ns;
            st->models[r].slope = all[r].slope;
            st->models[r].intercept_ns = all[r].intercept_ns;
            st->parents[r] = all[r].parent;
        }
    }
    free(all);
    return rc == MPI_SUCCESS ? 0 : MM_E_FAILED;
}

mm_status mm__sync_self_check(mm__launch_state *st) {
    mm_clocksync *cs = &st->cs;
    if (mm_clocksync_self_check(cs, st->res_ranks[0], st->res_ns[0], st->nres[0]) != MPI_SUCCESS) {
        st->err = cs->err;
        return MM_E_FAILED;
    }
    if (!cs->offset_only) return 0;
    if (st->rank == 0) {
        mm_condition *c = mm_conditions_entry(&st->conditions, "clocksync-drift-worse", NULL);
        if (c) {
            snprintf(c->message, sizeof c->message,
                     "right after the sync, %s's drift-aware model was %.1f us off at worst, the "
                     "offset-only model it implies %.1f us: the fitted drift is worse than none; "
                     "the launch uses the offset-only model (frozen at each sync's end, re-synced "
                     "every %g s)",
                     cs->vt->name, (double)cs->self_check_linear_ns * 1e-3,
                     (double)cs->self_check_offset_ns * 1e-3,
                     mm_config_effective_resync_s(st->cfg, mm_clocksync_model_kind(cs)));
            snprintf(c->hint, sizeof c->hint,
                     "a fit over a short span on a busy machine: use an offset-only sync with "
                     "re-syncs (--clocksync hca3o), or a longer --fit-span-s");
        }
    }
    return mm__gather_models(st);
}

/* A failed sync in the ranks' own words: each rank its MPI failure or its records lost out of
 * memory; rank 0 at least that it failed (the rank that knows why says so). */
static void mm__say_sync_failed(mm__launch_state *st) {
    const mm_clocksync *cs = &st->cs;
    char what[sizeof cs->err.call + sizeof cs->err.text + 2] = "";
    if (mm_mpi_failed(&cs->err))
        mm_mpi_error_format(&cs->err, what, sizeof what);
    else if (cs->log.lost > 0)
        snprintf(what, sizeof what, "out of memory for %zu of its records", cs->log.lost);
    else if (st->rank == 0)
        snprintf(what, sizeof what, "on another rank");
    else
        return;
    mm__launch_say(st, "rank %d: clock sync %d (%s) failed: %s", st->rank, cs->nsyncs, cs->vt->name, what);
}

mm_status mm__sync(mm__launch_state *st) {
    mm_status rc = mm_clocksync_run(&st->cs);
    /* test only: a spurious drift on the last rank, as a short fit under load gives */
    if (rc == 0 && st->cfg->inject.sync_slope_ppm > 0 && st->rank == st->nprocs - 1 &&
        strcmp(st->cs.vt->model_kind, "linear") == 0)
        mm_clocksync_inject_slope(&st->cs, st->cfg->inject.sync_slope_ppm);
    /* after the self-check chose it, every sync ends offset-only */
    if (rc == 0 && st->cs.offset_only) mm_clocksync_freeze(&st->cs);
    if (rc != 0) {
        if (st->rank == 0) {
            mm_condition *c = mm_conditions_entry(&st->conditions, "resync-failed", NULL);
            char what[sizeof st->cs.err.text + 64];
            mm_mpi_error_format(&st->cs.err, what, sizeof what);
            if (c) {
                snprintf(c->message, sizeof c->message,
                         "clock sync %d (%s) failed%s%s; the launch stopped there", st->cs.nsyncs,
                         st->cs.vt->name, what[0] ? ": " : "", what);
                snprintf(c->hint, sizeof c->hint,
                         "see the launch's stderr; the tests before it are complete");
            }
        }
        mm__say_sync_failed(st);
        return MM_E_FAILED;
    }
    if (mm__gather_models(st) != 0) return MM_E_FAILED;
    char why[256] = "";
    mm_status logged = mm_collect_sync_log(&st->cs.log, &st->sync_written, st->rank == 0 ? st->out.sync : NULL,
                                           st->epoch_ns, st->comm, why, sizeof why);
    /* every rank has the same status (rank 0 alone cannot write sync.csv: every rank ends the
     * launch together); the rank that failed says why */
    if (why[0]) mm__launch_say(st, "rank %d: %s", st->rank, why);
    return logged;
}

void mm__say_mpi_failure(mm__launch_state *st, const char *when) {
    if (!mm_mpi_failed(&st->err)) return;
    char what[sizeof st->err.call + sizeof st->err.text + 2];
    mm_mpi_error_format(&st->err, what, sizeof what);
    if (when)
        mm__launch_say(st, "rank %d: MPI failed %s: %s", st->rank, when, what);
    else
        mm__launch_say(st, "MPI failed: %s", what);
}

void mm__launch_say(mm__launch_state *st, const char *fmt, ...) {
    if (!st->result) return;
    va_list ap;
    if (st->result->on_message) { /* the caller shows it now */
        char line[1024];
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        st->result->on_message(line, st->result->on_message_ctx);
        return;
    }
    char *m = st->result->messages;
    size_t used = strlen(m), room = sizeof st->result->messages;
    if (used + 2 >= room) return;
    va_start(ap, fmt);
    vsnprintf(m + used, room - used - 1, fmt, ap);
    va_end(ap);
    used = strlen(m);
    m[used] = '\n';
    m[used + 1] = '\0';
}
