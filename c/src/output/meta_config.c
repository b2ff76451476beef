/* SPDX-License-Identifier: BSD-3-Clause */
/* meta_config.c — meta.json's "config" (docs/FORMAT.md): the resolved configuration, rendered
 * block by block of mm_config (mm_config.h), one renderer per block beside the others.
 *
 * The keys keep the order meta.json has always had, in which the blocks interleave (the
 * warm-up beside the repetitions, --seed among the plan's options ...): a block's renderer takes
 * the part of its keys that stand together, and mm__config_parts lists the parts in meta.json's
 * order. A new option of a block is a line in its block's part (or a new part in the list). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "meta_internal.h"

#include "mm_ops.h" /* the words of the one-sided options (macros only: no call up) */

typedef void (*mm__config_part)(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync);

/* The index-th comma-separated word of words. */
static void mm__word_at(const char *words, int index, char *out, size_t len) {
    const char *p = words;
    for (int i = 0; i < index && p; i++) {
        p = strchr(p, ',');
        if (p) p++;
    }
    snprintf(out, len, "%.*s", p ? (int)strcspn(p, ",") : 0, p ? p : "");
}

/* ---- the core: what runs, how, and where it goes ---- */

static void mm__core_what(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_key(j, "ops");
    mm_json_begin_array(j);
    for (int i = 0; i < cfg->nops && i < MM_MAX_OPS; i++) mm_json_string(j, cfg->ops[i]);
    mm_json_end_array(j);
    mm_json_key(j, "sizes");
    mm__i64_array(j, cfg->sizes, cfg->nsizes < MM_MAX_SIZES ? cfg->nsizes : MM_MAX_SIZES);
    mm_json_kv_int(j, "nrep", cfg->nrep);
}

static void mm__core_syncs(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_key(j, "clocksync");
    if (cfg->nclocksync > 0)
        mm_json_string(j, cfg->clocksync[0]);
    else
        mm_json_null(j);
    mm_json_kv_string(j, "procsync", cfg->procsync);
}

static void mm__core_out(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_kv_string(j, "out", cfg->out);
}

/* ---- mm_measure_opts ---- */

static void mm__measure_warmup(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_kv_int(j, "warmup", cfg->measure.warmup);
}

static void mm__measure_cold_cache(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_kv_int(j, "cold_cache_bytes", cfg->measure.cold_cache_bytes);
}

static void mm__measure_batch(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    /* --batch: calls per repetition timed once (IMB's MS2); raw.csv rows hold one call's share */
    mm_json_kv_int(j, "batch", cfg->measure.batch);
    /* --back-to-back: the companion's calls per test (0: off), tests[].back_to_back */
    mm_json_kv_int(j, "back_to_back", cfg->measure.back_to_back);
}

static void mm__measure_overhead(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    /* --subtract-overhead: tests[].overhead_ns is measured for the analysis to subtract */
    mm_json_kv_bool(j, "subtract_overhead", cfg->measure.subtract_overhead);
}

static void mm__measure_data(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_kv_string(j, "datatype", cfg->measure.datatype);
    mm_json_kv_string(j, "reduce_op", cfg->measure.reduce_op);
}

/* ---- mm_timer_opts ---- */

static void mm__timing_timer(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_kv_string(j, "timer", cfg->timing.timer);
}

static void mm__timing_virtual(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_key(j, "virtual");
    mm_json_begin_object(j);
    mm_json_kv_string(j, "base", cfg->timing.virtual_base);
    mm_json_kv_double(j, "offset_s", cfg->timing.virtual_offset_s);
    mm_json_kv_double(j, "skew_ppm", cfg->timing.virtual_skew_ppm);
    mm_json_end_object(j);
}

/* ---- mm_procsync_opts ---- */

static void mm__ps_window(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm__kv_positive(j, "window_us", cfg->ps.window_us); /* 0 = derived from a pilot */
    mm__kv_positive(j, "start_tolerance_ns", (double)cfg->ps.start_tolerance_ns); /* 0 = automatic */
}

static void mm__ps_params(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_key(j, "procsync_params");
    mm_json_begin_object(j);
    mm_json_kv_double(j, "roundtime_budget_s", cfg->ps.roundtime_budget_s);
    mm_json_kv_double(j, "bcast_factor", cfg->ps.bcast_factor);
    mm_json_kv_int(j, "window_growth_max", cfg->ps.window_growth_max);
    mm_json_kv_double(j, "switch_late_fraction", cfg->ps.switch_late_fraction);
    mm_json_kv_double(j, "launch_budget_s", cfg->ps.launch_budget_s);
    mm_json_end_object(j);
}

/* ---- mm_plan_opts ---- */

static void mm__plan_seed(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, cfg->plan.seed); /* unsigned: above 2^63 too */
    mm_json_key(j, "seed");
    mm_json_raw(j, seed);
    /* only when not shuffled (--order ascending): a campaign's documents stay as they were */
    if (cfg->plan.order_ascending) mm_json_kv_string(j, "order", "ascending");
}

static void mm__plan_ranks(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_key(j, "root"); /* --root: the ranks given, or "all" */
    if (cfg->plan.roots.all)
        mm_json_string(j, "all");
    else
        mm__int_array(j, cfg->plan.roots.v, cfg->plan.roots.n);
    mm_json_key(j, "nprocs"); /* --nprocs: the sub-communicator sizes; null: every rank */
    if (cfg->plan.comm_sizes.n > 0)
        mm__int_array(j, cfg->plan.comm_sizes.v, cfg->plan.comm_sizes.n);
    else
        mm_json_null(j);
}

static void mm__plan_workpieces(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    /* --workpieces: mw-workpieces' values (one test each; tests[].workpieces) */
    mm_json_key(j, "workpieces");
    mm__int_array(j, cfg->plan.workpieces.v, cfg->plan.workpieces.n);
}

static void mm__plan_pair(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_key(j, "pair");
    if (cfg->plan.pair_given)
        mm__int_array(j, cfg->plan.pair, 2);
    else
        mm_json_null(j); /* auto: probes.pingpong_pair says which pair the launch chose */
}

/* ---- mm_probe_opts ---- */

static void mm__probe(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_kv_int(j, "copy_probe_bytes", cfg->probe.copy_probe_bytes);
    mm__kv_text(j, "copy_probe_from", cfg->probe.copy_probe_from); /* null: this launch probed */
    mm__kv_text(j, "mpit_from", cfg->probe.mpit_from); /* null: this launch read the MPI_T cvars */
}

/* ---- mm_output_opts ---- */

static void mm__output_raw(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_kv_string(j, "raw", cfg->output.raw_reduced ? "reduced" : "full");
}

static void mm__output_force(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_kv_bool(j, "force", cfg->output.force);
}

/* ---- mm_nbc_opts ---- */

static void mm__nbc(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    mm_json_kv_string(j, "nbc_scheme", cfg->nbc.work_scheme ? "work" : "time");
    mm__kv_positive(j, "nbc_compute_ns", (double)cfg->nbc.compute_ns); /* null = auto */
    mm__kv_positive(j, "test_interval_bytes", (double)cfg->nbc.test_interval_bytes); /* null = none */
}

/* ---- mm_rma_opts ---- */

/* "rma": the one-sided options, only when --ops has a one-sided operation (so that launches
 * without one keep their shape); sync null when only window create/free rows were asked. */
static void mm__rma(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    if (!cfg->rma.used) return;
    char word[64];
    mm_json_key(j, "rma");
    mm_json_begin_object(j);
    mm__word_at(MM_RMA_SYNC_WORDS, cfg->rma.sync, word, sizeof word);
    mm_json_kv_string(j, "sync", cfg->rma.sync_given ? word : NULL);
    mm__word_at(MM_RMA_WINDOW_WORDS, cfg->rma.window, word, sizeof word);
    mm_json_kv_string(j, "window", word);
    mm_json_kv_int(j, "burst", cfg->rma.burst);
    mm__kv_positive(j, "window_bytes", (double)cfg->rma.window_bytes); /* null = auto */
    mm_json_end_object(j);
}

/* ---- mm_topology_opts ---- */

static void mm__topo(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    const mm_graph_facts *g = &cfg->topo.graph;
    if (cfg->topo.cart_used && g->nodes == 0) { /* only with a neighborhood collective on the
                                                 * torus; null = MPI_Dims_create's */
        mm_json_key(j, "cart_dims");
        if (cfg->topo.cart_ndims > 0)
            mm__int_array(j, cfg->topo.cart_dims, cfg->topo.cart_ndims);
        else
            mm_json_null(j);
    }
    if (cfg->topo.cart_used && g->nodes > 0) { /* --graph-file: what graph, not where it was */
        mm_json_key(j, "graph");
        mm_json_begin_object(j);
        mm_json_kv_string(j, "fnv1a64", g->digest);
        mm_json_kv_int(j, "nodes", g->nodes);
        mm_json_kv_int(j, "edges", g->edges);
        mm_json_key(j, "out_degree");
        mm__int_array(j, (int[]){g->out_min, g->out_max}, 2);
        mm_json_key(j, "in_degree");
        mm__int_array(j, (int[]){g->in_min, g->in_max}, 2);
        mm_json_end_object(j);
    }
}

/* ---- mm_counter_opts ---- */

static void mm__counters(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    const mm_counter_opts *c = &cfg->counters;
    mm__kv_text(j, "mpit_pvars", c->mpit_pvars[0] ? c->mpit_pvars : NULL); /* null = off */
    mm__kv_text(j, "papi", c->papi_events[0] ? c->papi_events : NULL);
    mm__kv_text(j, "likwid", c->likwid_group[0] ? c->likwid_group : NULL);
}

/* ---- mm_clocksync_opts ---- */

static void mm__cs_params(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    /* 0 in the config means "the algorithm's default": show the value the sync resolved
     * (null when the sync is not open yet) */
    const mm_clocksync_params *given = &cfg->cs.params;
    const mm_clocksync_params none = {0, 0, 0, 0, 0.0, 0, 0.0};
    const mm_clocksync_params *used = sync ? &sync->used : &none;
    mm_json_key(j, "clocksync_params");
    mm_json_begin_object(j);
    mm__kv_positive(j, "nfit", given->nfit > 0 ? given->nfit : used->nfit);
    mm__kv_positive(j, "pingpong_cap",
                    given->pingpong_cap > 0 ? given->pingpong_cap : used->pingpong_cap);
    mm__kv_positive(j, "n_nonimproving",
                    given->n_nonimproving > 0 ? given->n_nonimproving : used->n_nonimproving);
    mm__kv_positive(j, "min_rounds", given->min_rounds > 0 ? given->min_rounds : used->min_rounds);
    mm__kv_positive(j, "fit_span_s", given->fit_span_s > 0 ? given->fit_span_s : used->fit_span_s);
    mm__kv_positive(j, "fit_target_ns", (double)given->fit_target_ns); /* null: every fit point */
    mm_json_end_object(j);
}

static void mm__cs_resync(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    /* resolved: the algorithm's default when --resync was not given; <= 0 means never */
    const char *kind = sync && sync->model_kind ? sync->model_kind : "identity";
    mm__kv_positive(j, "resync_s", mm_config_effective_resync_s(cfg, kind));
}

/* ---- mm_adaptive_opts ---- */

static void mm__adaptive(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    (void)sync;
    const mm_adaptive_opts *a = &cfg->adaptive;
    /* --nrep auto: the stopping rule (null: a fixed --nrep, which "nrep" holds) */
    mm_json_key(j, "nrep_auto");
    if (a->nrep_rule != MM_NREP_FIXED) {
        mm_json_begin_object(j);
        mm_json_kv_string(j, "rule", mm_nrep_rule_name(a->nrep_rule));
        mm_json_kv_int(j, "min", a->nrep_min);
        mm_json_kv_int(j, "max", a->nrep_max);
        mm_json_kv_double(j, "precision", a->precision);
        mm__kv_double_if(j, "confidence", a->nrep_rule == MM_NREP_CI, a->nrep_confidence);
        mm_json_kv_int(j, "every", a->nrep_every);
        mm_json_kv_double(j, "budget_s", a->nrep_budget_s);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
    /* --sizes auto: the refinement's bounds ("sizes" holds the initial grid) */
    mm_json_key(j, "sizes_auto");
    if (a->sizes_auto) {
        mm_json_begin_object(j);
        mm_json_kv_int(j, "min", a->sizes_min);
        mm_json_kv_int(j, "max", a->sizes_max);
        mm_json_kv_int(j, "factor", a->sizes_factor);
        mm_json_kv_double(j, "precision", a->sizes_precision);
        mm_json_kv_int(j, "budget", a->sizes_budget);
        mm_json_end_object(j);
    } else {
        mm_json_null(j);
    }
}

/* meta.json's order of the parts (docs/FORMAT.md, "config") */
static const mm__config_part mm__config_parts[] = {
    mm__core_what,       mm__measure_warmup, mm__timing_timer,     mm__core_syncs,
    mm__ps_window,       mm__plan_seed,      mm__measure_cold_cache, mm__probe,
    mm__plan_ranks,      mm__measure_batch,  mm__plan_workpieces,  mm__measure_overhead,
    mm__plan_pair,       mm__measure_data,   mm__output_raw,       mm__nbc,
    mm__rma,             mm__topo,           mm__counters,         mm__core_out,
    mm__output_force,    mm__timing_virtual, mm__cs_params,        mm__ps_params,
    mm__cs_resync,       mm__adaptive,
};

void mm_meta_render_config(mm_json *j, const mm_config *cfg, const mm_sync_facts *sync) {
    mm_json_begin_object(j);
    for (size_t i = 0; i < sizeof mm__config_parts / sizeof mm__config_parts[0]; i++)
        mm__config_parts[i](j, cfg, sync);
    mm_json_end_object(j);
}
