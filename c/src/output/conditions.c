/* SPDX-License-Identifier: BSD-3-Clause */
/* conditions.c — meta.json's "conditions" (docs/FORMAT.md): what the binary noticed during a
 * launch, each with a stable code, a message, a hint and where. The analysis turns every one into
 * a warning with the same code; the binary itself judges nothing. */
#include <stdio.h>
#include <string.h>

#include "mm_output.h"

mm_condition *mm_conditions_entry(mm_conditions *c, const char *code, const char *where) {
    const char *w = where ? where : "";
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->item[i].code, code) == 0 && strcmp(c->item[i].where, w) == 0)
            return &c->item[i];
    if (c->n >= MM_MAX_CONDITIONS) {
        c->dropped++;
        return NULL;
    }
    mm_condition *e = &c->item[c->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->code, sizeof e->code, "%s", code);
    snprintf(e->where, sizeof e->where, "%s", w);
    return e;
}
