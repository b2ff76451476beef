/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_test_meta.h — meta.json's config object as the writer renders it, for the unit tests that
 * check an option shows there as it was given (test_counters.c, test_likwid.c). */
#ifndef MM_TEST_META_H
#define MM_TEST_META_H

#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_json.h"
#include "mm_output.h"

/* mm_meta_render_config of cfg, with the sync facts of a run that synced no clocks; the caller
 * frees the buffer (mm_buf_free). */
static inline mm_buf mm_test_render_config(const mm_config *cfg) {
    mm_buf b = {0};
    mm_json j;
    mm_json_init(&j, &b, 0);
    mm_sync_facts sync_facts;
    mm_clocksync_facts_of(cfg, NULL, &sync_facts);
    mm_meta_render_config(&j, cfg, &sync_facts);
    return b;
}

#endif
