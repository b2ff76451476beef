/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_mockups.h — the setup/run/teardown functions of the mock-up rows (ops_mockups.c), for
 * the op table (ops_table.c includes this and, inside the table, ops_mockups_rows.h). */
#ifndef MM_OPS_MOCKUPS_H
#define MM_OPS_MOCKUPS_H
#include "mm_mockups.h"
#include "mm_ops.h"
#include "ops_internal.h"

MM__ROW_DECL(allreduce_as_reduce_bcast)
MM__ROW_DECL(allreduce_as_rsb_allgather)
MM__ROW_DECL(allreduce_as_rs_allgatherv)
MM__ROW_DECL(allgather_as_gather_bcast)
MM__ROW_DECL(allgather_as_alltoall)
MM__ROW_DECL(allgather_as_allreduce)
MM__ROW_DECL(bcast_as_scatter_allgather)
MM__ROW_DECL(gather_as_allgather)
MM__ROW_DECL(gather_as_reduce)
MM__ROW_DECL(reduce_as_allreduce)
MM__ROW_DECL(reduce_as_rsb_gather)
MM__ROW_DECL(rs_as_allreduce)
MM__ROW_DECL(rs_as_reduce_scatterv)
MM__ROW_DECL(rsb_as_reduce_scatter)
MM__ROW_DECL(scan_as_exscan_reduce_local)
MM__ROW_DECL(scatter_as_bcast)
/* Frees a mock-up's temporaries and the original's buffers. */
void mm__mockup_teardown(mm_op_args *args);

#endif
