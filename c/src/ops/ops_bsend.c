/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_bsend.c — the buffer of the Bsend rows (pingpong-bsend-recv, mw-bsend), attached in setup
 * and detached in teardown, outside the timed region.
 * Why one place: MPI-3.1 §3.6 says how large it must be (per message: MPI_Pack_size of the
 * message + MPI_BSEND_OVERHEAD) and that detaching waits until the buffered messages left; both
 * rows follow that rule, with their own count of messages in flight. */
#include <stdint.h>
#include <stdlib.h>

#include "ops_internal.h"
#include "mm_error.h"

mm_status mm__bsend_attach(mm_op_args *a, int64_t messages, void **buf, int *bytes) {
    *buf = NULL;
    *bytes = 0;
    int one = 0;
    if (MM__SETUP_MPI(a, MPI_Pack_size(a->count, a->datatype, a->comm, &one)) != MPI_SUCCESS) return MM_E_FAILED;
    int64_t total = messages * ((int64_t)one + MPI_BSEND_OVERHEAD);
    if (total <= 0 || total > INT32_MAX) /* MPI_Buffer_attach takes an int */
        return mm__setup_failed(a, "a Bsend buffer of %lld bytes for %lld messages: MPI_Buffer_attach "
                                "takes 1 to %d", (long long)total, (long long)messages, INT32_MAX);
    *buf = malloc((size_t)total);
    if (!*buf) return mm__setup_no_memory(a, "the Bsend buffer", total);
    *bytes = (int)total;
    return MM__SETUP_MPI(a, MPI_Buffer_attach(*buf, *bytes)) == MPI_SUCCESS ? 0 : MM_E_FAILED;
}

void mm__bsend_detach(void *buf) {
    if (!buf) return;
    void *attached = NULL;
    int bytes = 0;
    MPI_Buffer_detach(&attached, &bytes); /* waits until the buffered messages left */
    free(buf);
}
