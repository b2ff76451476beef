/* SPDX-License-Identifier: BSD-3-Clause */
/* ops_rma_contention_rows.h — the rows of IMB-RMA's contention patterns in the op table (no
 * include guard: ops_table.c includes it once, inside the table's initializer, after the
 * one-sided rows of the pair). The functions are in ops_rma_contention.c. Uses the constraint
 * texts ops_table.c defines before the table. Buffers: the window of nprocs x --rma-burst
 * blocks declared as nprocs blocks (a burst of 1); the memory check counts the burst
 * (mm_op_setup_bytes, ops_memory.c). */
#define MM__C_RMAC                                                                               \
    MM__C_SIZE "; --rma-sync fence, lock-all-flush or lock-all-flush-local (required); "         \
    "--rma-window KIND; --rma-burst N rounds per timed call (1: IMB's non-aggregate mode); at "  \
    "least 2 ranks"
#define MM__RMAC(name, how, flags, fn, blocks_x_nprocs)                                          \
    {"rma-" name, MM_OP_KIND_RMA,                                                                \
     how ", --rma-burst rounds back to back, then one completion (lock-all-flush: "             \
     "MPI_Win_flush_all, lock-all-flush-local: MPI_Win_flush_local_all, in a lock_all epoch "    \
     "opened once; fence: fence, rounds, fence on every rank); each origin's rounds go to its "  \
     "own slots of the targets' windows",                                                        \
     MM__C_RMAC, MM_OP_FINISH_APART | MM_OP_NEEDS_TWO | (flags), mm__setup_rma_##fn,             \
     mm__run_rma_contention, mm__teardown_rma_contention, {1, blocks_x_nprocs, 0, 0},            \
     mm__after_rma_contention, MM_VOL_NONE, mm__verify_rma_contention}
MM__RMAC("one-put-all", "one-to-all (IMB-RMA's One_put_all; Put_all_local with lock-all-flush-local): "
         "the root (--root) puts size bytes into the window of every other rank with MPI_Put, in the "
         "order root+1, root+2, ...", MM_OP_ROOTED, one_put_all, 1),
MM__RMAC("one-get-all", "one-to-all (IMB-RMA's One_get_all): the root (--root) reads size bytes "
         "from the window of every other rank with MPI_Get", MM_OP_ROOTED, one_get_all, 2),
MM__RMAC("all-put-all", "all-to-all (IMB-RMA's All_put_all): every rank puts size bytes into the "
         "window of every other rank with MPI_Put, rank r in the order r+1, r+2, ...", 0, all_put_all, 1),
MM__RMAC("all-get-all", "all-to-all (IMB-RMA's All_get_all): every rank reads size bytes from the "
         "window of every other rank with MPI_Get", 0, all_get_all, 2),
MM__RMAC("all-put-one", "all-to-one: every rank but the root (--root) puts size bytes into the "
         "root's window with MPI_Put", MM_OP_ROOTED, all_put_one, 1),
MM__RMAC("all-get-one", "all-to-one: every rank but the root (--root) reads size bytes from the "
         "root's window with MPI_Get", MM_OP_ROOTED, all_get_one, 2),
#undef MM__RMAC
#undef MM__C_RMAC
