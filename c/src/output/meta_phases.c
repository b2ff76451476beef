/* SPDX-License-Identifier: BSD-3-Clause */
/* meta_phases.c — meta.json "phases": how long each phase of the launch took (docs/FORMAT.md).
 *
 * What: one object per phase, in the order the phases run (init, sync, probes, tests, write),
 *   each {"start_s", "seconds"} on rank 0's CLOCK_MONOTONIC, counted from the moment its process
 *   entered main; null for a phase not begun yet (a launch still running, or stopped), and a
 *   null "seconds" for one not finished.
 * Why: a launch's cost beside a peer's is a fact the binary can state (a default launch
 *   cost 2.4x an IMB run of the same tests); the phases say where it went. */
#include <stddef.h>

#include "meta_internal.h"

const char *mm_phase_name(int phase) {
    static const char *const names[MM_NPHASES] = {"init", "sync", "probes", "tests", "write"};
    return phase >= 0 && phase < MM_NPHASES ? names[phase] : NULL;
}

/* phases.probes.steps: what each probe cost, null for one that did not run (the copy probe
 * under --copy-probe-from: an earlier launch of the campaign ran it) */
static void mm__render_probe_steps(mm_json *j, const mm_phases *ph) {
    static const char *const names[MM_NPROBE_STEPS] = {"cacheline", "empty_region",
                                                       "copy_bandwidth", "pair_survey"};
    mm_json_key(j, "steps");
    mm_json_begin_object(j);
    for (int k = 0; k < MM_NPROBE_STEPS; k++)
        mm__kv_double_if(j, names[k], ph->probe_seconds[k] >= 0, ph->probe_seconds[k]);
    mm_json_end_object(j);
}

void mm__render_phases(mm_json *j, const mm_phases *ph) {
    mm_json_key(j, "phases");
    if (!ph) {
        mm_json_null(j);
        return;
    }
    mm_json_begin_object(j);
    for (int i = 0; i < MM_NPHASES; i++) {
        mm_json_key(j, mm_phase_name(i));
        if (ph->start_s[i] < 0) {
            mm_json_null(j);
            continue;
        }
        mm_json_begin_object(j);
        mm_json_kv_double(j, "start_s", ph->start_s[i]);
        mm__kv_double_if(j, "seconds", ph->seconds[i] >= 0, ph->seconds[i]);
        if (i == MM_PHASE_PROBES) mm__render_probe_steps(j, ph);
        mm_json_end_object(j);
    }
    mm_json_end_object(j);
}
