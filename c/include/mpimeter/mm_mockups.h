/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_mockups.h — which operations of the table are mock-ups (guideline right-hand sides) and
 * what they mock up: "allreduce-as-reduce-bcast" gives the result of allreduce through
 * MPI_Reduce then MPI_Bcast, timed as one region (c/src/ops/ops_mockups.c). --describe shows
 * the relation; the analysis (mpimeter guidelines) pairs each mock-up with its original. */
#ifndef MM_MOCKUPS_H
#define MM_MOCKUPS_H
#include <stddef.h>
#include "mm_ops.h"

/* The kind of a mock-up's row (--describe, meta.json "operations"). */
#define MM_OP_KIND_MOCKUP "mock-up"

typedef struct mm_mockup {
    const char *name;     /* its row's name in the op table */
    const char *of;       /* the operation whose result it gives */
    const char *calls[2]; /* the MPI calls it is made of, in order (NULL: fewer) */
} mm_mockup;

extern const mm_mockup mm_mockups[];
extern const size_t mm_mockups_count;
/* The mock-up record of an op of the table; NULL when the op is no mock-up. */
const mm_mockup *mm_mockup_of(const mm_op *op);

#endif
