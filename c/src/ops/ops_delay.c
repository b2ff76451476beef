/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_delay.c — the synthetic operation `delay`: every rank busy-waits on the benchmark's own
 * timer for `size` nanoseconds. No communication.
 *
 * Why: a known, local-only duration lets the whole chain — process sync, timestamps, raw
 * files, the analysis — be checked end to end: every rank's local duration must be >= size
 * (plus the timer's read cost), and with a window sync the global run time must be about size
 * plus the start skew between ranks. Busy-waiting, not sleeping, so the rank stays on its CPU
 * as it would in a real MPI call (Open MPI and MPICH busy-poll).
 * Cost: size ns of one CPU per rank, plus one timer read.
 * Paper: Hoefler, Schneider & Lumsdaine 2010 §4 (a known delay to measure overlap/progression
 * against; NBCBench's compute loop); Hunold & Carpen-Amarie 2016 §3.2 (WAIT_UNTIL). */
#include "mm_ops.h"
#include "mm_timer.h"
#include "ops_internal.h"
#include "mm_error.h"

mm_status mm__setup_delay(mm_op_args *a) {
    mm__args_clear(a);
    if (!a->timer) return mm__setup_failed(a, "no timer to wait on");
    if (a->size < 0) return mm__setup_failed(a, "a delay of %lld ns: at least 0", (long long)a->size);
    return 0;
}

int mm__run_delay(const mm_op_args *a) {
    mm_timer_wait_until(a->timer, mm_timer_now(a->timer) + a->size);
    return MPI_SUCCESS;
}

void mm__teardown_delay(mm_op_args *a) { (void)a; }
