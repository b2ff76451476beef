/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_facts.h — the parts of the launch record (mm_launch, mm_output.h) that modules above
 * output fill with their own values: the clock sync's and each operation's. Plain data: output
 * renders it without calling up into the modules it came from (docs/ARCHITECTURE.md). */
#ifndef MM_FACTS_H
#define MM_FACTS_H
#include "mm_clocksync.h"

/* The clock sync as meta.json tells it: values copied from the module that ran it (clocksync:
 * mm_clocksync_facts_of), so that output renders them without calling up into clocksync. */
typedef struct mm_sync_facts {
    /* config.clocksync_params and config.resync_s: the parameters in use (the given ones win
     * where given) and the model kind ("identity" without a sync) */
    const char *model_kind;
    mm_clocksync_params used;
    /* "clock_sync": an object when a sync is open (method not NULL), else null */
    const char *method;
    const char *chosen; /* clock_sync.chosen: how the method was chosen (NULL: not rendered) */
    double duration_s, total_duration_s;
    int nsyncs, nfailed;
    /* clock_sync.self_check (clocksync/self_check.c): null unless checked */
    int self_checked, offset_only;
    int64_t self_check_linear_ns, self_check_offset_ns;
} mm_sync_facts;

/* One entry of meta.json "operations" (ops: mm_op_facts_of_config). */
typedef struct mm_op_facts {
    const char *name, *kind, *size_unit;
    int finish_apart, round_trip;
    int uses_pair; /* MM_OP_PAIR: the two ranks of the pair communicate, the others idle */
    const char *volume_formula; /* NULL: no bound volume */
    double bytes_per_size;
    const char *mockup_of; /* a mock-up (mm_mockups.h): the op whose result it gives; else NULL */
} mm_op_facts;

#endif
