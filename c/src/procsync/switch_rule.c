/* SPDX-License-Identifier: BSD-3-Clause */
/* switch_rule.c — the window's own policy on a busy machine: when to stop adapting and go on
 * with a method that holds (docs/FORMAT.md, "procsync_switches"; issue: numbers from a busy
 * machine).
 *
 * Why: SKaMPI's window doubles while more than a quarter of a batch is invalid (Reussner et al.
 * 1998). That cures a window too short for the call, not a rank that is not running when its
 * window opens: on a loaded machine the window was seen doubling to 22 ms with 294 of 300
 * repetitions still late. Round-time (CLUSTER 2018) plans each start afresh and redoes a late
 * one; a barrier (MS1) has no planned start at all and cannot be late. So a test whose late
 * fraction stays above the threshold after the window could grow goes on with roundtime, and
 * a roundtime still late above it goes on with barrier.
 * Pure: no MPI, unit-tested (c/tests/unit/test_window_adapt.c). */
#include "mm_procsync.h"

const char *mm_switch_why(long late, long had, double threshold, int at_cap, int late_before) {
    if (had <= 0 || threshold >= 1.0) return NULL;
    if ((double)late <= threshold * (double)had) return NULL;
    if (at_cap) return "late-at-cap";
    if (late_before) return "late-twice";
    return NULL;
}
