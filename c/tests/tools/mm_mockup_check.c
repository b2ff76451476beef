/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_mockup_check.c — a test tool (not a test itself; c/tests/mpi/test_mockups.py runs it under
 * mpirun): every mock-up of the op table gives the result of the collective it mocks up.
 *
 * For each mock-up, every datatype, the first two reduction ops defined on it (mock-ups of
 * reducing collectives), element counts that are and are not multiples of nprocs, and the first
 * and last rank as root (rooted originals): the original and the mock-up are set up by their own
 * rows (the same inputs), their result regions are poisoned, each runs once, and the regions are
 * compared byte for byte on every rank where the original defines a result. The poison makes a
 * mock-up that leaves its result unwritten fail even where the correct result is the zero the
 * buffers start with (a sum of +1 and -1 on two ranks).
 * Output: one line per mismatch and a last line "checked N cases, M mismatches, F failed" on
 * rank 0; exit status 1 when a case mismatched or could not run.
 * Usage: mpirun -np P mm_mockup_check [NAME]   (NAME: only that mock-up) */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mm_mockups.h"
#include "mm_ops.h"

/* Where an original op leaves its result on this rank: NULL where it defines none (a gather's
 * non-root), else *bytes of it. The mock-ups leave theirs at the same place. */
static unsigned char *result_of(const char *original, const mm_op_args *a, size_t *bytes) {
    size_t block = (size_t)a->count * (size_t)a->type_size;
    size_t all = block * (size_t)a->nprocs;
    int root = a->rank == a->root;
    *bytes = block;
    if (!strcmp(original, "bcast")) return a->sendbuf;
    if (!strcmp(original, "allgather")) *bytes = all;
    if (!strcmp(original, "gather")) *bytes = root ? all : 0;
    if (!strcmp(original, "reduce") && !root) *bytes = 0;
    if (!strcmp(original, "reduce_scatter")) *bytes = (size_t)a->recvcounts[a->rank] * (size_t)a->type_size;
    return *bytes ? a->recvbuf : NULL;
}

static void prepare(mm_op_args *a, const char *datatype, const char *reduce_op, int count, int root) {
    memset(a, 0, sizeof *a);
    a->comm = MPI_COMM_WORLD;
    MPI_Comm_rank(a->comm, &a->rank);
    MPI_Comm_size(a->comm, &a->nprocs);
    a->root = root;
    mm_datatype_lookup(datatype, &a->datatype, &a->type_size);
    mm_reduce_op_lookup(reduce_op, &a->reduce_op);
    a->count = count;
    a->size = (int64_t)count * a->type_size;
}

/* One case: 0 equal, 1 different (on this rank), 2 could not run. */
static int check_case(const mm_mockup *m, const char *datatype, const char *reduce_op, int count, int root) {
    const mm_op *original = mm_op_find(m->of), *mockup = mm_op_find(m->name);
    mm_op_args ao, am;
    prepare(&ao, datatype, reduce_op, count, root);
    prepare(&am, datatype, reduce_op, count, root);
    if (!original || !mockup || original->setup(&ao) || mockup->setup(&am)) return 2;
    size_t bo, bm;
    unsigned char *ro = result_of(m->of, &ao, &bo), *rm = result_of(m->of, &am, &bm);
    int is_input = !strcmp(m->of, "bcast") && ao.rank == root; /* the root's data, not a result */
    if (ro && !is_input) memset(ro, 0x5a, bo);
    if (rm && !is_input) memset(rm, 0xa5, bm);
    int failed = original->run(&ao) != MPI_SUCCESS || mockup->run(&am) != MPI_SUCCESS;
    int differ = bo != bm || (bo && memcmp(ro, rm, bo) != 0);
    original->teardown(&ao);
    mockup->teardown(&am);
    return failed ? 2 : differ;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *only = argc > 1 ? argv[1] : NULL;
    /* multiples of nprocs and not (the padded compositions), one element, none */
    const int counts[] = {0, 1, 3 * nprocs + 1, 64 * nprocs};
    long cases = 0, mismatches = 0, broken = 0, matched_name = 0;
    for (size_t i = 0; i < mm_mockups_count; i++) {
        const mm_mockup *m = &mm_mockups[i];
        if (only && strcmp(only, m->name) != 0) continue;
        matched_name = 1;
        const mm_op *original = mm_op_find(m->of);
        int reduces = original && (original->flags & MM_OP_REDUCES);
        int rooted = original && (original->flags & MM_OP_ROOTED);
        for (size_t d = 0; mm_datatype_at(d, NULL, NULL); d++) {
            const char *dt = mm_datatype_at(d, NULL, NULL);
            int ops_checked = 0;
            for (size_t o = 0; mm_reduce_op_at(o) && ops_checked < 2; o++) {
                const char *op = mm_reduce_op_at(o);
                char why[256];
                if (reduces ? mm_reduce_op_check(op, dt, why, sizeof why) != 0 : o > 0) continue;
                ops_checked++;
                for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
                    for (int root = 0; root < nprocs; root += rooted && nprocs > 1 ? nprocs - 1 : nprocs) {
                        int mine = check_case(m, dt, op, counts[c], root), worst = 0;
                        MPI_Allreduce(&mine, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
                        cases++;
                        if (worst == 0) continue;
                        worst == 1 ? mismatches++ : broken++;
                        if (rank == 0)
                            printf("%s: %s datatype=%s reduce-op=%s count=%d root=%d\n",
                                   worst == 1 ? "mismatch" : "failed", m->name, dt, reduces ? op : "-",
                                   counts[c], root);
                    }
                }
            }
        }
    }
    if (rank == 0) {
        if (only && !matched_name) printf("no mock-up named %s\n", only);
        printf("checked %ld cases, %ld mismatches, %ld failed\n", cases, mismatches, broken);
    }
    MPI_Finalize();
    return mismatches || broken || (only && !matched_name) ? 1 : 0;
}
