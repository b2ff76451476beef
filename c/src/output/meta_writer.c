/* SPDX-License-Identifier: BSD-3-Clause */
/* meta_writer.c — renders meta.json (docs/FORMAT.md) from an mm_launch.
 *
 * What: one pretty-printed JSON object, "schema_version" first, then the tool, status, argv,
 * the full resolved configuration (meta_config.c), MPI library and build, system, rank placement, environment,
 * machine load, timer, clock sync quality, process sync counts, per-test status and the
 * conditions the launch noticed (facts with a code; the analysis judges them).
 * Every key is always present; what is not known (yet) is null — a NULL pointer in the
 * mm_launch (no residuals measured yet, no virtual timer, provenance not collected) gives null,
 * never a crash.
 * Why: the launch folder must be self-describing and versioned (Hoefler & Belli 2015, rule 9:
 * document the set-up so that results can be interpreted and reproduced); it is rewritten
 * after every test, so its status and the tests' statuses say which raw.csv rows are complete.
 * Cost: linear in nprocs + number of tests; called once per test. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "meta_internal.h"

#include "build_info.h"

void mm_meta_render_operations(mm_json *j, const mm_op_facts *ops, int nops) {
    mm_json_begin_object(j);
    for (int i = 0; ops && i < nops; i++) {
        const mm_op_facts *op = &ops[i];
        mm_json_key(j, op->name);
        mm_json_begin_object(j);
        mm_json_kv_string(j, "kind", op->kind);
        mm_json_kv_bool(j, "ranks_finish_apart", op->finish_apart);
        mm_json_kv_string(j, "size_unit", op->size_unit);
        /* the timed call is a round trip: the analysis halves it (one-way latency) */
        mm_json_kv_bool(j, "round_trip", op->round_trip);
        /* only the two ranks of the pair communicate (ping-pongs, one-sided pair rows); false:
         * every rank of the communicator takes part (or none communicates: kind local) */
        mm_json_kv_bool(j, "uses_pair", op->uses_pair);
        /* the data term of the op's bound on these nprocs ranks (mm_op_volume; null: none) */
        mm_json_key(j, "bound_volume");
        if (op->volume_formula) {
            mm_json_begin_object(j);
            mm_json_kv_string(j, "formula", op->volume_formula);
            mm_json_kv_double(j, "bytes_per_size", op->bytes_per_size);
            mm_json_end_object(j);
        } else {
            mm_json_null(j);
        }
        /* a mock-up: the op whose result it gives (only on mock-ups: mpimeter guidelines) */
        if (op->mockup_of) mm_json_kv_string(j, "mockup_of", op->mockup_of);
        mm_json_end_object(j);
    }
    mm_json_end_object(j);
}

static void mm__render_mpit(mm_json *j, const mm_mpit_info *m) {
    mm_json_key(j, "mpi_t");
    if (!m->available) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_object(j);
    mm_json_kv_int(j, "cvars", m->cvars);
    mm_json_kv_string(j, "digest", m->digest);
    mm_json_key(j, "selected");
    mm_json_raw(j, m->selected.data && m->selected.len ? m->selected.data : "{}");
    mm_json_end_object(j);
}

static void mm__render_mpi_build_system(mm_json *j, const mm_provenance *p) {
    mm_json_key(j, "mpi");
    if (p) {
        mm_json_begin_object(j);
        mm__kv_text(j, "library", p->mpi_library);
        mm__kv_text(j, "version", p->mpi_version);
        const char *full = p->library_version_full;
        mm_json_key(j, "library_version");
        if (full && *full) {
            mm_buf first = {0};
            mm_buf_append(&first, full, strcspn(full, "\r\n"));
            mm_json_string(j, first.data);
            mm_buf_free(&first);
        } else {
            mm_json_null(j);
        }
        mm__kv_text(j, "library_version_full", full);
        mm__render_mpit(j, &p->mpit);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
    /* the build is compiled into this binary: known even without provenance */
    mm_json_key(j, "build");
    mm_json_begin_object(j);
    mm_json_kv_string(j, "compiler", MM_COMPILER);
    mm_json_kv_string(j, "flags", MM_COMPILE_FLAGS);
    mm_json_kv_string(j, "mpicc", MM_MPICC);
    mm_json_end_object(j);
    mm_json_key(j, "system");
    if (p) {
        mm_json_begin_object(j);
        mm__kv_text(j, "kernel", p->kernel);
        mm__kv_text(j, "cpu_model", p->cpu_model);
        mm_json_key(j, "tsc_flags");
        mm__word_array(j, p->tsc_flags);
        mm__kv_text(j, "governor", p->governor);
        mm_json_key(j, "ncpus");
        if (p->ncpus > 0)
            mm_json_int(j, p->ncpus);
        else
            mm_json_null(j);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
}

/* probes.pingpong_pair: null without ping-pongs in the launch. */
static void mm__render_pair(mm_json *j, const mm_pair_choice *c) {
    mm_json_key(j, "pingpong_pair");
    if (c->chosen_by == MM_PAIR_NONE) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_object(j);
    mm_json_key(j, "ranks");
    mm__int_array(j, c->pair, 2);
    mm_json_kv_string(j, "chosen_by", c->chosen_by == MM_PAIR_GIVEN ? "option" : "largest-latency");
    mm_json_kv_int(j, "round_trips", c->chosen_by == MM_PAIR_GIVEN ? 0 : MM_PAIR_ROUND_TRIPS);
    mm_json_key(j, "samples");
    mm_json_begin_array(j);
    for (int i = 0; i < c->nsamples; i++) {
        mm_json_begin_object(j);
        mm_json_key(j, "ranks");
        mm__int_array(j, c->sample[i], 2);
        mm__kv_double_if(j, "median_rtt_ns", c->median_rtt_ns[i] >= 0, c->median_rtt_ns[i]);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
    mm_json_end_object(j);
}

/* ranks[r]: where the rank ran, and (once the launch finished) which CPUs it was seen on and
 * their clock rate at the start and the end */
static void mm__render_rank(mm_json *j, const mm_provenance *p, int r) {
    mm_json_begin_object(j);
    mm_json_kv_int(j, "rank", r);
    mm__kv_text(j, "host", p->ranks[r].host);
    mm_json_key(j, "cpus");
    mm__cpu_list_array(j, p->ranks[r].cpus);
    mm_json_kv_int(j, "pid", p->ranks[r].pid);
    const mm_rank_info *ri = &p->ranks[r];
    int finished = p->wall_end[0] != '\0';
    mm_json_key(j, "cpus_seen");
    if (finished)
        mm__cpu_list_array(j, ri->cpus_seen);
    else
        mm_json_null(j);
    mm_json_key(j, "cpu_changes");
    if (finished)
        mm_json_int(j, ri->cpu_changes);
    else
        mm_json_null(j);
    mm_json_key(j, "cpu_khz");
    if (finished && ri->khz_start > 0 && ri->khz_end > 0) {
        double khz[2] = {ri->khz_start, ri->khz_end};
        mm__double_array(j, khz, 2);
    } else {
        mm_json_null(j);
    }
    mm_json_end_object(j);
}

static void mm__render_ranks_env_load(mm_json *j, const mm_provenance *p, int nprocs) {
    mm_json_key(j, "ranks");
    if (p && p->ranks) {
        mm_json_begin_array(j);
        for (int r = 0; r < nprocs; r++) mm__render_rank(j, p, r);
        mm_json_end_array(j);
    } else {
        mm_json_null(j);
    }
    mm_json_key(j, "probes");
    if (p) {
        mm_json_begin_object(j);
        mm_json_key(j, "cacheline_rtt_ns");
        mm_json_begin_array(j);
        for (int i = 0; i < p->nprobes; i++) {
            const mm_cacheline_probe *e = &p->probes[i];
            mm_json_begin_object(j);
            int ranks[2] = {e->rank_a, e->rank_b}, cpus[2] = {e->cpu_a, e->cpu_b};
            mm_json_key(j, "ranks");
            mm__int_array(j, ranks, 2);
            mm__kv_text(j, "host", p->ranks ? p->ranks[e->rank_a].host : NULL);
            mm_json_key(j, "cpus");
            mm__int_array(j, cpus, 2);
            mm__kv_double_if(j, "rtt_ns", e->rtt_ns >= 0, e->rtt_ns);
            mm_json_end_object(j);
        }
        mm_json_end_array(j);
        mm__kv_double_if(j, "empty_region_ns", p->has_empty_region, p->empty_region_ns);
        mm__render_pair(j, &p->pair);
        mm_meta_render_bound_probes(j, p);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
    mm_json_key(j, "environment");
    if (p && p->environment_json.data && p->environment_json.len)
        mm_json_raw(j, p->environment_json.data);
    else
        mm_json_null(j);
    mm_json_key(j, "load");
    if (p) {
        int finished = p->wall_end[0] != '\0';
        mm_json_begin_object(j);
        mm_json_key(j, "loadavg_start");
        mm__double_array(j, p->loadavg_start, 3);
        mm_json_key(j, "loadavg_end");
        if (finished)
            mm__double_array(j, p->loadavg_end, 3);
        else
            mm_json_null(j);
        mm__kv_double_if(j, "other_cpu_s", finished, p->other_cpu_s);
        mm__kv_double_if(j, "own_cpu_s", finished, p->own_cpu_s);
        mm__kv_double_if(j, "wall_s", finished, p->wall_s);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
}

static void mm__render_timer(mm_json *j, const mm_launch *l) {
    mm_json_key(j, "timer");
    const mm_timer *t = l->timer;
    if (!t || !t->vt) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_object(j);
    mm_json_kv_string(j, "name", t->vt->name);
    mm_json_kv_double(j, "resolution_ns", t->resolution_ns);
    mm_json_kv_double(j, "overhead_ns", t->overhead_ns);
    mm__kv_positive(j, "tsc_hz", t->tsc_hz);
    mm_json_key(j, "virtual");
    if (l->virtual_offsets_ns && l->virtual_skews_ppm) {
        mm_json_begin_object(j);
        mm_json_key(j, "offsets_ns");
        mm__i64_array(j, l->virtual_offsets_ns, l->nprocs);
        mm_json_key(j, "skews_ppm");
        mm__double_array(j, l->virtual_skews_ppm, l->nprocs);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
    mm_json_end_object(j);
}

void mm_meta_render(const mm_launch *l, mm_buf *out) {
    out->len = 0;
    if (out->data) out->data[0] = '\0';
    mm_json j;
    mm_json_init(&j, out, 1);
    const mm_provenance *p = l->prov;
    mm_json_begin_object(&j);
    mm_json_kv_int(&j, "schema_version", MM_SCHEMA_VERSION);
    mm_json_key(&j, "tool");
    mm_json_begin_object(&j);
    mm_json_kv_string(&j, "name", "mpimeter-bench");
    mm_json_kv_string(&j, "version", MM_TOOL_VERSION);
    mm_json_kv_string(&j, "git_revision", MM_GIT_REVISION);
    mm_json_end_object(&j);
    mm__kv_text(&j, "status", l->status);
    mm_json_key(&j, "pid");
    if (p)
        mm_json_int(&j, p->pid);
    else
        mm_json_null(&j);
    mm__kv_text(&j, "host_of_rank0", p && p->ranks ? p->ranks[0].host : NULL);
    mm_json_key(&j, "argv");
    mm_json_raw(&j, l->cfg ? l->cfg->output.argv_joined : NULL); /* already a JSON array */
    mm_json_key(&j, "config");
    if (l->cfg)
        mm_meta_render_config(&j, l->cfg, l->sync);
    else
        mm_json_null(&j);
    mm_json_kv_int(&j, "nprocs", l->nprocs);
    mm_json_key(&j, "operations");
    if (l->cfg)
        mm_meta_render_operations(&j, l->ops, l->nops);
    else
        mm_json_null(&j);
    mm__render_mpi_build_system(&j, p);
    mm__render_ranks_env_load(&j, p, l->nprocs);
    mm__render_timer(&j, l);
    mm__render_clock_sync(&j, l);
    mm__render_proc_sync(&j, l);
    mm_json_kv_int(&j, "launch_epoch_local_ns_rank0", l->epoch_local_ns_rank0);
    mm__kv_text(&j, "wall_start", p ? p->wall_start : NULL);
    mm__kv_text(&j, "wall_end", p ? p->wall_end : NULL);
    mm__render_phases(&j, l->phases);
    mm__render_tests(&j, l);
    mm__render_size_refinement(&j, l);
    mm__render_conditions(&j, l->conditions);
    mm_json_key(&j, "counters");
    mm_json_raw(&j, l->counters_json); /* NULL: null */
    mm__render_pgmpi(&j);
    mm_json_end_object(&j);
    mm_buf_append(out, "\n", 1);
}
