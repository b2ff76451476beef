/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_op_args.h — the unit tests' op arguments: an op's setup called without MPI_Init, on ints
 * summed, as `rank` of `nprocs` with `root`. */
#ifndef MM_OP_ARGS_H
#define MM_OP_ARGS_H
#include <string.h>

#include "mm_ops.h"

static inline mm_op_args mm_test_op_args(int64_t size, int rank, int nprocs, int root) {
    mm_op_args a;
    memset(&a, 0, sizeof a);
    a.rank = rank;
    a.nprocs = nprocs;
    a.root = root;
    a.size = size;
    a.datatype = MPI_INT;
    a.type_size = (int)sizeof(int);
    a.reduce_op = MPI_SUM;
    return a;
}
#endif
