/* SPDX-License-Identifier: BSD-3-Clause */
/* switch.c — carrying out the window's own policy within a test (procsync/switch_rule.c says
 * when): the scheme in use ends, the test goes on with its fallback (window -> roundtime ->
 * barrier), and the test's record says from which repetition, why and with what late fraction
 * (docs/FORMAT.md, tests[].procsync_switches), so that no repetition's method is left unsaid.
 * Collective: every rank switches at the same sequence number (the request comes from an
 * agreed count).
 * A round trip under an automatic window runs back to back instead, from its first repetition:
 * its time is one rank's clock (SKaMPI, Reussner et al. 1998 §2.1, the ping-pong pattern), so it
 * needs no common start, and the wait outside MPI a window puts before each call is part of what
 * the call costs — at 64 KiB a wait of 10 us made 30-45 % of the round trips take a slow path
 * and the launch's median flip between the two (docs/ALGORITHMS.md, "A round trip runs back to
 * back"). A window the user sized (--window-us) applies to round trips too. Alike on every rank:
 * it depends on the configuration and the op only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int mm_bench_round_trip_alone(mm_procsync *ps, mm_test *t, const mm_config *cfg) {
    const mm_procsync_vtable *none = mm_procsync_find("none");
    if (!none || strcmp(ps->vt->name, "window") != 0 || cfg->ps.window_us > 0 ||
        !(t->op->flags & MM_OP_ROUND_TRIP) || t->nswitches >= MM_MAX_SWITCHES)
        return 0;
    t->switches[t->nswitches++] = (mm_switch_record){.from = ps->vt->name, .to = none->name,
                                                     .why = MM_SWITCH_ROUND_TRIP, .from_rep = 0, .at_seq = 0,
                                                     .late_fraction = NAN, .window_ns = 0};
    ps->vt = none;
    ps->window_ns = 0; /* none has no window; the previous test's must not be recorded */
    return 1;
}
