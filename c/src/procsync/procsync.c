/* procsync.c — the registry of process syncs and what they share. */
#include <stdlib.h>
#include <string.h>

#include "mm_procsync.h"

extern const mm_procsync_vtable mm_procsync_barrier;
extern const mm_procsync_vtable mm_procsync_window;
extern const mm_procsync_vtable mm_procsync_none;
extern const mm_procsync_vtable mm_procsync_loop_barrier;
extern const mm_procsync_vtable mm_procsync_roundtime;
extern const mm_procsync_vtable mm_procsync_harmonize;

const mm_procsync_vtable *const mm_procsync_registry[] = {
    &mm_procsync_window,
    &mm_procsync_barrier,
    &mm_procsync_none,
    &mm_procsync_loop_barrier,
    &mm_procsync_roundtime,
    &mm_procsync_harmonize,
    NULL,
};

const mm_procsync_vtable *mm_procsync_find(const char *name) {
    for (int i = 0; mm_procsync_registry[i]; i++)
        if (strcmp(mm_procsync_registry[i]->name, name) == 0) return mm_procsync_registry[i];
    return NULL;
}

const char *mm_procsync_names(void) {
    /* Built once per call into a caller-independent buffer; the registry is constant. */
    static char names[512];
    size_t used = 0;
    names[0] = '\0';
    for (int i = 0; mm_procsync_registry[i]; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                 mm_procsync_registry[i]->name);
    return names;
}

int mm_procsync_open(mm_procsync *ps, const char *name, MPI_Comm comm, const mm_timer *timer,
                     mm_clocksync *cs, const mm_config *cfg) {
    memset(ps, 0, sizeof *ps);
    ps->vt = mm_procsync_find(name);
    if (!ps->vt) return -1;
    ps->comm = comm;
    MPI_Comm_rank(comm, &ps->rank);
    MPI_Comm_size(comm, &ps->nprocs);
    ps->timer = timer;
    ps->cs = cs;
    ps->cfg = cfg;
    return 0;
}

void mm_procsync_close(mm_procsync *ps) {
    free(ps->state);
    ps->state = NULL;
}


int64_t mm_procsync_bcast_time_ns(mm_procsync *ps) {
    enum { ROUNDS = 9 };
    int64_t samples[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        int64_t value = r;
        MPI_Barrier(ps->comm);
        int64_t t0 = mm_timer_now(ps->timer);
        MPI_Bcast(&value, 1, MPI_INT64_T, 0, ps->comm);
        samples[r] = mm_timer_now(ps->timer) - t0;
    }
    qsort(samples, ROUNDS, sizeof samples[0], mm_cmp_i64);
    int64_t median = samples[ROUNDS / 2], max_median = 0;
    MPI_Allreduce(&median, &max_median, 1, MPI_INT64_T, MPI_MAX, ps->comm);
    return max_median;
}

/* Shared by the schemes that need no work around a repetition. */
int mm_procsync_nothing_before(mm_procsync *ps, long rep) { return 0; }
int mm_procsync_nothing_after(mm_procsync *ps, long rep, int64_t s, int64_t e, int before) {
    return before;
}
void mm_procsync_nothing_end(mm_procsync *ps) {}
int mm_procsync_barrier_begin(mm_procsync *ps, mm_timed_fn call, const void *arg) {
    return MPI_Barrier(ps->comm);
}
