/* SPDX-License-Identifier: BSD-3-Clause */
/* procsync_registry.c — the process syncs by name (--procsync): the one file that lists them,
 * apart from what they share (procsync.c), so that variants and list form no circle. */
#include <stdlib.h>
#include <string.h>

#include "mm_procsync.h"
#include "mm_error.h"

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

/* The window's policy (switch_rule.c): what a switching scheme goes on with. */
const mm_procsync_vtable *mm_procsync_fallback(const mm_procsync_vtable *vt) {
    if (vt == &mm_procsync_window) return &mm_procsync_roundtime;
    if (vt == &mm_procsync_roundtime) return &mm_procsync_barrier;
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

mm_status mm_procsync_open(mm_procsync *ps, const char *name, MPI_Comm comm, const mm_timer *timer,
                           mm_clocksync *cs, const mm_config *cfg) {
    memset(ps, 0, sizeof *ps);
    ps->vt = mm_procsync_find(name);
    if (!ps->vt) return MM_E_FAILED;
    ps->comm = comm;
    MM_MPI(&ps->err, MPI_Comm_rank(comm, &ps->rank));
    MM_MPI(&ps->err, MPI_Comm_size(comm, &ps->nprocs));
    ps->timer = timer;
    ps->cs = cs;
    ps->cfg = cfg;
    ps->inject_late_wakeup_ns =
        ps->rank == ps->nprocs - 1 ? (int64_t)(cfg->inject.late_wakeup_us * 1e3) : 0;
    return 0;
}

void mm_procsync_close(mm_procsync *ps) {
    free(ps->state);
    ps->state = NULL;
}
