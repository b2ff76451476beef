/* SPDX-License-Identifier: BSD-3-Clause */
/* switch.c — carrying out the window's own policy within a test (procsync/switch_rule.c says
 * when): the scheme in use ends, the test goes on with its fallback (window -> roundtime ->
 * barrier), and the test's record says from which repetition, why and with what late fraction
 * (docs/FORMAT.md, tests[].procsync_switches), so that no repetition's method is left unsaid.
 * Collective: every rank switches at the same sequence number (the request comes from an
 * agreed count). */
#include <stdlib.h>

#include "mm_bench.h"

int mm_bench_switch(mm_procsync *ps, mm_test *t, mm_timed_fn call, const void *arg,
                    long recorded, long seq) {
    const mm_procsync_vtable *next = mm_procsync_fallback(ps->vt);
    const char *why = ps->switch_why;
    ps->switch_why = NULL;
    if (!next) {
        ps->may_switch = 0;
        return MPI_SUCCESS;
    }
    if (t->nswitches < MM_MAX_SWITCHES) {
        mm_switch_record *r = &t->switches[t->nswitches++];
        r->from = ps->vt->name;
        r->to = next->name;
        r->why = why;
        r->from_rep = recorded;
        r->at_seq = seq;
        r->late_fraction = ps->switch_late_fraction_seen;
        r->window_ns = ps->window_ns;
    }
    ps->vt->end_test(ps);
    free(ps->state);
    ps->state = NULL;
    ps->vt = next;
    ps->switched = 1;
    ps->window_ns = 0; /* the new scheme's, if it has one */
    ps->may_switch = mm_procsync_fallback(next) != NULL;
    return next->begin_test(ps, call, arg);
}
