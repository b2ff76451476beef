/* SPDX-License-Identifier: BSD-3-Clause */
/* mpi_wait.c — waiting for a request without holding a CPU (mm_mpi.h, mm_wait_sleeping).
 *
 * What: MPI_Test, a few hundred times at once, then with sleeps of 10 us doubling up to 1 ms.
 * Why: MPI libraries spin in blocking calls (MPICH 4.0 ch4:ucx has no setting that makes it
 *   yield). Where ranks share cores, a rank that only waits for others — outside the pair a probe
 *   is measuring, say — then holds a CPU the measuring ranks need, and each of their messages
 *   waits for a scheduler time slice: milliseconds instead of microseconds. A sleeping rank is
 *   not runnable, so the scheduler moves the measuring ranks onto the free CPUs.
 * Cost: up to a sleep step (at most 1 ms) late after the request completed. Under SimGrid's SMPI
 *   a blocking MPI_Wait (MPI_Barrier): simulated ranks share no CPU, and every MPI_Test would add
 *   simulated time. */
#include <time.h>

#include "mm_mpi.h"

enum { MM__POLITE_SPINS = 200 };

int mm_wait_sleeping(MPI_Request *req) {
#ifdef MM_SIMGRID
    return MPI_Wait(req, MPI_STATUS_IGNORE);
#else
    long sleep_ns = 10000; /* doubles up to 1 ms: a long wait wakes the running ranks rarely */
    for (int polls = 0;; polls++) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        if (polls >= MM__POLITE_SPINS) {
            struct timespec ts = {0, sleep_ns};
            nanosleep(&ts, NULL);
            if (sleep_ns < 1000000) sleep_ns *= 2;
        }
    }
#endif
}

int mm_barrier_sleeping(MPI_Comm comm) {
#ifdef MM_SIMGRID
    return MPI_Barrier(comm); /* as before the polite wait: simulated ranks share no CPU */
#endif
    MPI_Request req;
    int rc = MPI_Ibarrier(comm, &req);
    return rc == MPI_SUCCESS ? mm_wait_sleeping(&req) : rc;
}
