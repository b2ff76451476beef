/* SPDX-License-Identifier: BSD-3-Clause */
/* sync_log.c — the record of every offset measurement of a launch (sync.csv): a growing array that
 * the sync variants append to. Apart from clocksync.c, which lists the variants, so that the
 * variants and the registry do not reach each other in a circle. */
#include <stdlib.h>

#include "cs_internal.h"
#include "mm_error.h"

mm_status mm_sync_log_add(mm_sync_log *log, mm_sync_record r) {
    if (log->n == log->cap) {
        size_t cap = log->cap ? 2 * log->cap : 256;
        mm_sync_record *rec = realloc(log->rec, cap * sizeof *rec);
        if (!rec) {
            log->lost++;
            return MM_E_NOMEM;
        }
        log->rec = rec;
        log->cap = cap;
    }
    log->rec[log->n++] = r;
    return 0;
}

void mm_sync_log_free(mm_sync_log *log) {
    free(log->rec);
    log->rec = NULL;
    log->n = log->cap = log->lost = 0;
}
