/* SPDX-License-Identifier: BSD-3-Clause */
/* timer_registry.c — the timer variants by name (--timer): the one file that lists them, so that
 * a variant (the virtual timer wraps another) never reaches the list through a circle. */
#include <stdio.h>
#include <string.h>

#include "mm_timer.h"
#include "timer_internal.h"
#include "mm_error.h"

const mm_timer_vtable *const mm_timer_registry[] = {
    &mm_timer_monotonic, &mm_timer_monotonic_raw, &mm_timer_realtime, &mm_timer_wtime,
    &mm_timer_tsc,       &mm_timer_virtual,       NULL,
};

const mm_timer_vtable *mm_timer_find(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; mm_timer_registry[i]; i++)
        if (strcmp(mm_timer_registry[i]->name, name) == 0) return mm_timer_registry[i];
    return NULL;
}

mm_status mm_timer_open(mm_timer *t, const char *name, const mm_virtual_params *vp, char *why,
                        size_t why_len) {
    memset(t, 0, sizeof *t);
    const mm_timer_vtable *vt = mm_timer_find(name);
    if (!vt) {
        snprintf(why, why_len, "unknown timer '%s'; allowed: %s", name ? name : "(null)",
                 mm_timer_names());
        return MM_E_FAILED;
    }
    mm_virtual_params resolved;
    if (vp) {
        resolved = *vp;
        resolved.base_vt = mm_timer_find(vp->base);
        vp = &resolved;
    }
    return mm_timer_open_variant(t, vt, vp, why, why_len);
}
