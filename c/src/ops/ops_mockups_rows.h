/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_mockups_rows.h — the mock-up rows of the op table (no include guard: ops_table.c includes
 * it once, inside the table's initializer, so that the mock-ups stay in their own files).
 * Each row: the original's size semantics and bound (volume), its root only where a step of
 * the composition uses --root; the functions are in ops_mockups.c, the relation to the original
 * in its mm_mockups. Uses the constraint texts ops_table.c defines before the table. */
#define MM__MK_PAD "; a vector not divisible into nprocs blocks is padded up to ceil(count/nprocs) x nprocs elements (zeros, result discarded)"
#define MM__BLOCKS(a, b, c, d) {a, b, c, d}
#define MM__MK(name, what, constraints, flags, fn, buffers, volume)                              \
    {name, MM_OP_KIND_MOCKUP, what, constraints, flags, mm__setup_##fn, mm__run_##fn,            \
     mm__mockup_teardown, buffers, NULL, volume, NULL}
MM__MK("allreduce-as-reduce-bcast", "mock-up of allreduce (same size, result): MPI_Reduce to root 0, then MPI_Bcast from root 0",
       MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, allreduce_as_reduce_bcast, MM__BLOCKS(2, 0, 0, 0), MM_VOL_2PM1_OVER_P),
MM__MK("allreduce-as-rsb-allgather", "mock-up of allreduce (same size, result): MPI_Reduce_scatter_block of nprocs blocks, then MPI_Allgather of the blocks",
       MM__C_SIZE MM__C_REDUCE MM__MK_PAD, MM_OP_REDUCES, allreduce_as_rsb_allgather, MM__BLOCKS(3, 0, 0, 0), MM_VOL_2PM1_OVER_P),
MM__MK("allreduce-as-rs-allgatherv", "mock-up of allreduce (same size, result): MPI_Reduce_scatter of the vector split into nprocs shares (count/nprocs, one more for the first count % nprocs ranks), then MPI_Allgatherv of the shares",
       MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, allreduce_as_rs_allgatherv, MM__BLOCKS(3, 0, 0, 0), MM_VOL_2PM1_OVER_P),
MM__MK("allgather-as-gather-bcast", "mock-up of allgather (same size, result): MPI_Gather to root 0, then MPI_Bcast of the nprocs blocks from root 0",
       MM__C_SIZE MM__C_NBLOCKS, MM_OP_FINISH_APART, allgather_as_gather_bcast, MM__BLOCKS(1, 1, 0, 0), MM_VOL_PM1),
MM__MK("allgather-as-alltoall", "mock-up of allgather (same size, result): MPI_Alltoall sending the own block to every rank",
       MM__C_SIZE MM__C_NBLOCKS, 0, allgather_as_alltoall, MM__BLOCKS(1, 2, 0, 0), MM_VOL_PM1),
MM__MK("allgather-as-allreduce", "mock-up of allgather (same size, result): MPI_Allreduce (MPI_BOR on MPI_BYTE) of nprocs blocks, zero but the own block",
       MM__C_SIZE MM__C_NBLOCKS, 0, allgather_as_allreduce, MM__BLOCKS(1, 2, 0, 0), MM_VOL_PM1),
MM__MK("bcast-as-scatter-allgather", "mock-up of bcast (same size, result): MPI_Scatter of nprocs blocks from root, then MPI_Allgather of the blocks",
       MM__C_SIZE MM__C_ROOT MM__MK_PAD, MM_OP_ROOTED, bcast_as_scatter_allgather, MM__BLOCKS(2, 0, 0, 0), MM_VOL_SIZE),
MM__MK("gather-as-allgather", "mock-up of gather (same size, result at root; every rank gets it): MPI_Allgather",
       MM__C_SIZE MM__C_NBLOCKS, 0, gather_as_allgather, MM__BLOCKS(1, 1, 0, 0), MM_VOL_PM1),
MM__MK("gather-as-reduce", "mock-up of gather (same size, result): MPI_Reduce (MPI_BOR on MPI_BYTE) to root of nprocs blocks, zero but the own block",
       MM__C_SIZE MM__C_ROOT MM__C_NBLOCKS, MM_OP_ROOTED | MM_OP_FINISH_APART, gather_as_reduce, MM__BLOCKS(1, 1, 0, 1), MM_VOL_PM1),
MM__MK("reduce-as-allreduce", "mock-up of reduce (same size, result at root; every rank gets it): MPI_Allreduce",
       MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, reduce_as_allreduce, MM__BLOCKS(2, 0, 0, 0), MM_VOL_PM1_OVER_P),
MM__MK("reduce-as-rsb-gather", "mock-up of reduce (same size, result): MPI_Reduce_scatter_block of nprocs blocks, then MPI_Gather of the blocks to root",
       MM__C_SIZE MM__C_ROOT MM__C_REDUCE MM__MK_PAD, MM_OP_REDUCES | MM_OP_ROOTED | MM_OP_FINISH_APART, reduce_as_rsb_gather, MM__BLOCKS(2, 0, 1, 0), MM_VOL_PM1_OVER_P),
MM__MK("rs-as-allreduce", "mock-up of reduce_scatter (same size, split, result): MPI_Allreduce of the whole vector, then a local copy of the own share",
       MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES, rs_as_allreduce, MM__BLOCKS(3, 0, 0, 0), MM_VOL_PM1_OVER_P),
MM__MK("rs-as-reduce-scatterv", "mock-up of reduce_scatter (same size, split, result): MPI_Reduce to root 0, then MPI_Scatterv of the shares from root 0",
       MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, rs_as_reduce_scatterv, MM__BLOCKS(3, 0, 0, 0), MM_VOL_PM1_OVER_P),
MM__MK("rsb-as-reduce-scatter", "mock-up of reduce_scatter_block (same size, result): MPI_Reduce of the nprocs blocks to root 0, then MPI_Scatter from root 0",
       MM__C_SIZE MM__C_REDUCE MM__C_NBLOCKS, MM_OP_REDUCES | MM_OP_FINISH_APART, rsb_as_reduce_scatter, MM__BLOCKS(1, 2, 0, 0), MM_VOL_PM1),
MM__MK("scan-as-exscan-reduce_local", "mock-up of scan (same size, result): MPI_Exscan, then MPI_Reduce_local of the own vector (rank 0: a copy)",
       MM__C_SIZE MM__C_REDUCE, MM_OP_REDUCES | MM_OP_FINISH_APART, scan_as_exscan_reduce_local, MM__BLOCKS(2, 0, 0, 0), MM_VOL_SIZE),
MM__MK("scatter-as-bcast", "mock-up of scatter (same size, result): MPI_Bcast of the root's nprocs blocks, then a local copy of the own block",
       MM__C_SIZE MM__C_ROOT "; every rank needs nprocs x size bytes", MM_OP_ROOTED | MM_OP_FINISH_APART, scatter_as_bcast, MM__BLOCKS(1, 1, 0, 0), MM_VOL_PM1),
#undef MM__MK
#undef MM__MK_PAD
#undef MM__BLOCKS
