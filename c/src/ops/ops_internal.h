/* ops_internal.h — names shared between the ops files (and test_ops.c), not part of the public
 * interface: the setup/run/teardown functions the table points to, and datatype kinds. */
#ifndef MM_OPS_INTERNAL_H
#define MM_OPS_INTERNAL_H
#include "mm_ops.h"

/* What a datatype's elements are, for filling buffers and for which reductions MPI defines
 * on it (MPI-3.1 §5.9.2). */
typedef enum {
    MM__KIND_UNKNOWN = 0,
    MM__KIND_BYTE,    /* MPI_BYTE: bitwise reductions only */
    MM__KIND_CHAR,    /* MPI_CHAR: printable characters, no reductions */
    MM__KIND_INTEGER, /* C integers: every reduction */
    MM__KIND_FLOAT,   /* floating point: no bitwise reductions */
} mm__datatype_kind;

mm__datatype_kind mm__datatype_kind_of(MPI_Datatype dt);

/* Collectives (ops_coll.c). */
#define MM__COLL_DECL(op)                          \
    int mm__setup_##op(mm_op_args *args);          \
    int mm__run_##op(const mm_op_args *args);
MM__COLL_DECL(allgather)
MM__COLL_DECL(allgatherv)
MM__COLL_DECL(allreduce)
MM__COLL_DECL(alltoall)
MM__COLL_DECL(alltoallv)
MM__COLL_DECL(barrier)
MM__COLL_DECL(bcast)
MM__COLL_DECL(exscan)
MM__COLL_DECL(gather)
MM__COLL_DECL(gatherv)
MM__COLL_DECL(reduce)
MM__COLL_DECL(reduce_scatter)
MM__COLL_DECL(reduce_scatter_block)
MM__COLL_DECL(scan)
MM__COLL_DECL(scatter)
MM__COLL_DECL(scatterv)
#undef MM__COLL_DECL
/* Frees whatever a collective's setup allocated; safe on a partly set-up or zeroed args. */
void mm__coll_teardown(mm_op_args *args);

/* Nonblocking collectives (ops_nbc.c): setup = the blocking twin's + the I-call; one run and
 * one teardown for all. */
#define MM__NBC_DECL(op) int mm__setup_i##op(mm_op_args *args);
MM__NBC_DECL(allgather)
MM__NBC_DECL(allgatherv)
MM__NBC_DECL(allreduce)
MM__NBC_DECL(alltoall)
MM__NBC_DECL(alltoallv)
MM__NBC_DECL(barrier)
MM__NBC_DECL(bcast)
MM__NBC_DECL(exscan)
MM__NBC_DECL(gather)
MM__NBC_DECL(gatherv)
MM__NBC_DECL(reduce)
MM__NBC_DECL(reduce_scatter)
MM__NBC_DECL(reduce_scatter_block)
MM__NBC_DECL(scan)
MM__NBC_DECL(scatter)
MM__NBC_DECL(scatterv)
#undef MM__NBC_DECL
int mm__run_nbc(const mm_op_args *args);
void mm__nbc_teardown(mm_op_args *args);

/* The synthetic delay (ops_delay.c). */
int mm__setup_delay(mm_op_args *args);
int mm__run_delay(const mm_op_args *args);
void mm__teardown_delay(mm_op_args *args);

#endif
