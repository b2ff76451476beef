/* SPDX-License-Identifier: BSD-3-Clause */
/* abort.c — ending every rank after one rank said why. MPI_Abort is the only way out when peers
 * may wait for this rank forever, but MPICH's launcher tears the job down as soon as the abort
 * reaches it, before it has forwarded what is still in the rank's stderr pipe: the one line that
 * says why was lost (the pipe's reader is the launcher's proxy; FIONREAD on a pipe counts the
 * bytes it has not read yet). */
#include <mpi.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "app_output.h"

/* Long enough for a proxy on a loaded machine to be scheduled; bounded so that a stopped
 * reader cannot keep the launch from ending. */
#define MM__DRAIN_LIMIT_NS 2000000000LL

void mm_abort_after_line(MPI_Comm comm, int code) {
    fflush(stderr);
    const struct timespec pause = {.tv_sec = 0, .tv_nsec = 1000000};
    int unread = 0;
    for (long long waited_ns = 0; waited_ns < MM__DRAIN_LIMIT_NS; waited_ns += pause.tv_nsec) {
        /* Not a pipe (a terminal, a file): the call fails or counts 0 and the loop ends. */
        if (ioctl(STDERR_FILENO, FIONREAD, &unread) != 0 || unread <= 0) break;
        nanosleep(&pause, NULL);
    }
    MPI_Abort(comm, code);
}
