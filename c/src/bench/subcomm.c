/* SPDX-License-Identifier: BSD-3-Clause */
/* subcomm.c — the sub-communicators of --nprocs LIST (SKaMPI and NBCBench measure collectives
 * "varied over the number of nodes" inside one run).
 *
 * What: for each size k below the launch's, MPI_Comm_split keeps the first k ranks (ranks 0 to
 * k-1 of the launch, in their order: rank r of the launch is rank r of the sub-communicator);
 * a process sync of its own runs on them, reading the launch's clock models (the global clock
 * restricted to those ranks: their models map to the same reference, rank 0's clock). The
 * other ranks wait at a barrier of the launch while the test runs.
 * Why the first k: on one host and with ranks placed in order, the first k ranks are the k
 * ranks a launch of k would have; the rule is documented (docs/FORMAT.md, tests[].nprocs).
 * Cost: one MPI_Comm_split per size at the start of the tests. */
#include <stdlib.h>
#include <string.h>

#include "launch_internal.h"
#include "mm_error.h"

/* Per size below the launch's, the communicator of the first k ranks (MPI_COMM_NULL on the
 * others) and its process sync (opened on the ranks inside). */
struct mm__subcomms {
    int nsub;
    int sub_size[MM_MAX_LIST];
    MPI_Comm sub_comm[MM_MAX_LIST];
    mm_procsync sub_ps[MM_MAX_LIST];
};

mm_status mm__subcomms_open(mm__launch_state *st, mm__subcomms **subs) {
    mm__subcomms *s = *subs = calloc(1, sizeof *s);
    if (!mm_all_ok(st->comm, s != NULL)) return MM_E_FAILED;
    int sizes[MM_MAX_LIST], n = mm_config_comm_sizes(st->cfg, st->nprocs, sizes);
    int ok = 1;
    for (int i = 0; i < n; i++) {
        if (sizes[i] >= st->nprocs) continue; /* the launch's own communicator */
        int j = s->nsub++;
        s->sub_size[j] = sizes[i];
        s->sub_comm[j] = MPI_COMM_NULL;
        int inside = st->rank < sizes[i];
        if (MM_MPI(&st->err, MPI_Comm_split(st->comm, inside ? 0 : MPI_UNDEFINED, st->rank,
                                            &s->sub_comm[j])) != MPI_SUCCESS)
            return MM_E_FAILED;
        if (inside)
            ok &= mm_procsync_open(&s->sub_ps[j], st->cfg->procsync, s->sub_comm[j], &st->timer,
                                   &st->cs, st->cfg) == 0;
    }
    return mm_all_ok(st->comm, ok) ? 0 : MM_E_FAILED;
}

void mm__subcomms_close(mm__subcomms *s) {
    if (!s) return;
    for (int j = 0; j < s->nsub; j++) {
        if (s->sub_comm[j] == MPI_COMM_NULL) continue;
        mm_procsync_close(&s->sub_ps[j]);
        MPI_Comm_free(&s->sub_comm[j]);
    }
    free(s);
}

int mm__test_comm(mm__launch_state *st, mm__subcomms *s, const mm_test *t, MPI_Comm *comm,
                  mm_procsync **ps) {
    *comm = st->comm;
    *ps = &st->ps;
    if (t->nprocs >= st->nprocs) return 1;
    for (int j = 0; s && j < s->nsub; j++) {
        if (s->sub_size[j] != t->nprocs) continue;
        *comm = s->sub_comm[j];
        *ps = &s->sub_ps[j];
        return s->sub_comm[j] != MPI_COMM_NULL;
    }
    return 0; /* cannot happen: every size of the plan has its communicator */
}
