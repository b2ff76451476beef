/* SPDX-License-Identifier: BSD-3-Clause */
/* meta_internal.h — what the meta.json writers share (meta_writer.c: the launch and its
 * machine; meta_runs.c: clock sync, process sync, tests and conditions; meta_bounds.c: the
 * probes of the performance bound): small JSON helpers that
 * write null for what is not known. Internal to c/src/output/. */
#ifndef MM_META_INTERNAL_H
#define MM_META_INTERNAL_H
#include "mm_output.h"
#include "mm_nrep.h" /* the words of nrep_rule and stopped_by */

void mm__kv_text(mm_json *j, const char *k, const char *v);          /* null when NULL or "" */
void mm__kv_double_if(mm_json *j, const char *k, int known, double v); /* null unless known */
void mm__kv_positive(mm_json *j, const char *k, double v);            /* null when <= 0 */
void mm__int_array(mm_json *j, const int *v, int n);
void mm__i64_array(mm_json *j, const int64_t *v, int n);
void mm__double_array(mm_json *j, const double *v, int n);
void mm__word_array(mm_json *j, const char *words);  /* "a b,c" as ["a", "b", "c"] */
void mm__cpu_list_array(mm_json *j, const char *list); /* "0-1,3" as [0, 1, 3] */
const char *mm__test_status_word(int status);

void mm__render_clock_sync(mm_json *j, const mm_launch *l);
void mm__render_proc_sync(mm_json *j, const mm_launch *l);
void mm__render_tests(mm_json *j, const mm_launch *l);
void mm__render_conditions(mm_json *j, const mm_conditions *c);
/* probes.copy_bandwidth and probes.latency_floor (meta_bounds.c) */
void mm_meta_render_bound_probes(mm_json *j, const mm_provenance *p);
void mm__render_size_refinement(mm_json *j, const mm_launch *l);
/* "phases" (meta_phases.c): null when ph is NULL */
void mm__render_phases(mm_json *j, const mm_phases *ph);
/* "pgmpi" (meta_pgmpi.c): the preloaded libmpimeter-pgmpi.so's report, null without it */
void mm__render_pgmpi(mm_json *j);

#endif
