/* SPDX-License-Identifier: BSD-3-Clause */
/* test_setup_errors.c — a setup that fails says what failed and why in args->error (mm_ops.h),
 * and one that holds leaves it empty. No MPI_Init: these setups only check and allocate. An
 * allocation the process cannot hold is forced by capping its address space (RLIMIT_AS), so
 * the test does not depend on the machine's memory or its overcommit setting. */
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include "../../src/ops/ops_internal.h"
#include "mm_check.h"
#include "mm_op_args.h"
#include "mm_error.h"
#include "mm_ops.h"

static int contains(const char *haystack, const char *needle) {
    int found = strstr(haystack, needle) != NULL;
    if (!found) fprintf(stderr, "  expected '%s' in '%s'\n", needle, haystack);
    return found;
}

/* alltoall of 1 GiB blocks on 64 ranks: a 64 GiB send buffer, in an address space of 16 GiB. */
static void test_allocation_too_large(void) {
    struct rlimit old;
    CHECK_EQ_INT(getrlimit(RLIMIT_AS, &old), 0);
    struct rlimit cap = old;
    rlim_t sixteen_gib = (rlim_t)1 << 34;
    cap.rlim_cur = old.rlim_max != RLIM_INFINITY && old.rlim_max < sixteen_gib ? old.rlim_max : sixteen_gib;
    CHECK_EQ_INT(setrlimit(RLIMIT_AS, &cap), 0);
    const mm_op *op = mm_op_find("alltoall");
    mm_op_args a = mm_test_op_args((int64_t)1 << 30, 0, 64, 0);
    CHECK_EQ_INT(op->setup(&a), MM_E_FAILED);
    CHECK(contains(a.error, "cannot allocate the send buffer (68719476736 bytes): out of memory"));
    CHECK(!a.sendbuf && !a.recvbuf); /* what was allocated before the failure is freed */
    CHECK_EQ_INT(setrlimit(RLIMIT_AS, &old), 0);

    /* the same arguments set up again at a size that fits: no message left over */
    a.size = 1024;
    CHECK_EQ_INT(op->setup(&a), 0);
    CHECK_EQ_INT(a.error[0], '\0');
    op->teardown(&a);
}

/* Arguments a launch's option checks refuse before any setup runs: a caller that skipped them
 * is told which one does not hold. */
static void test_arguments_refused(void) {
    mm_op_args a = mm_test_op_args(10, 0, 2, 0); /* not a whole number of 4-byte ints */
    CHECK_EQ_INT(mm_op_find("allreduce")->setup(&a), MM_E_FAILED);
    CHECK(contains(a.error, "size 10 is not a whole number of 4-byte elements"));

    a = mm_test_op_args(8, 0, 2, 2);
    CHECK_EQ_INT(mm_op_find("gather")->setup(&a), MM_E_FAILED);
    CHECK(contains(a.error, "root 2 is not one of the 2 ranks"));

    a = mm_test_op_args(8, 0, 4, 0);
    a.pair[0] = a.pair[1] = 1;
    const mm_op *pingpong = mm_op_find("pingpong-send-recv");
    CHECK_EQ_INT(pingpong->setup(&a), MM_E_FAILED);
    CHECK(contains(a.error, "the pair 1, 1 is not two of the 4 ranks"));
    pingpong->teardown(&a);

    a = mm_test_op_args(8, 0, 1, 0);
    const mm_op *mw = mm_op_find("mw-send");
    CHECK_EQ_INT(mw->setup(&a), MM_E_FAILED);
    CHECK(contains(a.error, "a master and its workers need 2 ranks or more"));
    mw->teardown(&a);

    a = mm_test_op_args(8, 0, 2, 0); /* a nonblocking row without the launch's state */
    CHECK_EQ_INT(mm_op_find("iallreduce")->setup(&a), MM_E_FAILED);
    CHECK(contains(a.error, "no nonblocking state"));

    a = mm_test_op_args(1000, 0, 1, 0); /* the delay waits on the launch's timer */
    CHECK_EQ_INT(mm_op_find("delay")->setup(&a), MM_E_FAILED);
    CHECK(contains(a.error, "no timer to wait on"));
}

int main(void) {
    test_allocation_too_large();
    test_arguments_refused();
    return mm_check_summary("test_setup_errors");
}
