/* SPDX-License-Identifier: BSD-3-Clause */
/* meta_bounds.c — renders the probes of a launch's performance bound into meta.json "probes"
 * (docs/FORMAT.md): "copy_bandwidth" (probe_copy.c) and "latency_floor" (the pair survey of
 * pairs.c). Facts only: the analysis builds the bound from them and each operation's
 * "bound_volume" (Hoefler & Belli 2015, rule 11). */
#include "meta_internal.h"

static void mm__render_copy(mm_json *j, const mm_provenance *p) {
    mm_json_key(j, "copy_bandwidth");
    if (!p->has_copy) {
        mm_json_null(j);
        return;
    }
    const mm_copy_probe *c = &p->copy;
    mm_json_begin_object(j);
    mm_json_kv_int(j, "max_bytes", c->max_bytes);
    mm_json_kv_int(j, "ranks_at_once", c->ranks_at_once);
    mm_json_kv_int(j, "batches", MM_COPY_BATCHES);
    mm_json_kv_int(j, "batch_bytes", MM_COPY_BATCH_BYTES);
    mm_json_key(j, "sizes");
    mm_json_begin_array(j);
    for (int i = 0; i < c->nsizes; i++) {
        const mm_copy_rate *e = &c->rate[i];
        mm_json_begin_object(j);
        mm_json_kv_int(j, "bytes", e->bytes);
        mm_json_kv_int(j, "copies_per_batch", e->copies);
        mm_json_kv_int(j, "ranks", e->ranks);
        mm__kv_double_if(j, "min_Bps", e->ranks > 0, e->min_Bps);
        mm__kv_double_if(j, "median_Bps", e->ranks > 0, e->median_Bps);
        mm__kv_double_if(j, "max_Bps", e->ranks > 0, e->max_Bps);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
    mm_json_end_object(j);
}

static void mm__render_latency_floor(mm_json *j, const mm_provenance *p) {
    mm_json_key(j, "latency_floor");
    const mm_pair_survey *s = &p->survey;
    if (!p->has_survey || s->nsamples == 0) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_object(j);
    mm_json_kv_string(j, "pairs_by", "sampled");
    mm_json_kv_int(j, "message_bytes", 1);
    mm_json_kv_int(j, "round_trips", MM_PAIR_ROUND_TRIPS);
    mm_json_key(j, "pairs");
    mm_json_begin_array(j);
    for (int i = 0; i < s->nsamples; i++) {
        mm_json_begin_object(j);
        mm_json_key(j, "ranks");
        mm__int_array(j, s->sample[i], 2);
        mm__kv_double_if(j, "min_rtt_ns", s->min_rtt_ns[i] >= 0, s->min_rtt_ns[i]);
        mm__kv_double_if(j, "median_rtt_ns", s->median_rtt_ns[i] >= 0, s->median_rtt_ns[i]);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
    mm_json_end_object(j);
}

void mm_meta_render_bound_probes(mm_json *j, const mm_provenance *p) {
    mm__render_copy(j, p);
    mm__render_latency_floor(j, p);
}
