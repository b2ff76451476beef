/* SPDX-License-Identifier: BSD-3-Clause */
/* timer_wtime.c — MPI_Wtime() converted to integer nanoseconds.
 *
 * Why: the timer most MPI benchmarks use (IMB, OSU, SKaMPI), offered so that results can be
 * compared with theirs. It is usable only between MPI_Init and MPI_Finalize. Its origin is
 * library-defined: Open MPI 4.1 starts each process at 0 on its first call, MPICH uses
 * CLOCK_REALTIME minus a constant; so raw values of different ranks are not comparable without
 * a clock sync. A double holding seconds since a distant origin has coarse steps (~0.2 µs at
 * 1.7e9 s); mm_timer_probe measures and reports the step actually seen.
 * Cost: one MPI_Wtime call (~70 ns here) and a multiply.
 * Paper: Hoefler, Schneider & Lumsdaine 2010 §3.1 (MPI_Wtime's unknown time source); Hunold &
 * Carpen-Amarie 2016 §3.3 (on the resolution of clocks). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#include "mm_mpi.h"
#include "mm_timer.h"
#include "mm_error.h"

static mm_status mm__wtime_available(char *why, size_t why_len) {
    int initialized = 0, finalized = 0;
    if (MM_MPI(NULL, MPI_Initialized(&initialized)) != MPI_SUCCESS ||
        MM_MPI(NULL, MPI_Finalized(&finalized)) != MPI_SUCCESS)
        initialized = 0;
    if (!initialized || finalized) {
        snprintf(why, why_len,
                 "timer 'wtime' reads MPI_Wtime, which is usable only after MPI_Init and before "
                 "MPI_Finalize (MPI is %s)",
                 finalized ? "already finalized" : "not initialized");
        return MM_E_FAILED;
    }
    return 0;
}

static mm_status mm__wtime_init(mm_timer *t, const mm_virtual_params *vp, char *why, size_t why_len) {
    (void)t, (void)vp, (void)why, (void)why_len;
    return 0;
}

static int64_t mm__wtime_now(const mm_timer *t) {
    (void)t;
    return (int64_t)llround(MPI_Wtime() * 1e9);
}

static void mm__wtime_finalize(mm_timer *t) { (void)t; }

const mm_timer_vtable mm_timer_wtime = {
    .name = "wtime",
    .description = "MPI_Wtime() in ns; needs MPI_Init; origin and resolution set by the MPI "
                   "library",
    .available = mm__wtime_available,
    .init = mm__wtime_init,
    .now_ns = mm__wtime_now,
    .finalize = mm__wtime_finalize,
    .needs_mpi = 1,
};
