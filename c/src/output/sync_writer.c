/* SPDX-License-Identifier: BSD-3-Clause */
/* sync_writer.c — appends clock-sync records to sync.csv (docs/FORMAT.md):
 *   rank,phase,kind,peer,local_ns,offset_ns,rtt_ns
 * with kind as a word (edge | model | residual) and local_ns minus the launch epoch.
 *
 * Why: every offset measurement is kept so that the analysis can fit a better global clock
 * after the fact (interpolating between the initial sync and later re-syncs, as trace tools
 * do) than the online extrapolation the windows had to use (docs/ALGORITHMS.md, "After the
 * fact"; Hunold & Carpen-Amarie 2016 §3.2 on drift).
 * Cost: O(n) rows — a few thousand per launch, so plain fprintf is fast enough; then fflush
 * (the final meta.json write fsyncs the file: mm_outdir_write_meta). All records are checked
 * before anything is written, so a bad record leaves the file unchanged. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "mm_output.h"
#include "mm_error.h"

static const char *mm__sync_kind_word(int32_t kind) {
    switch (kind) {
    case MM_SYNC_EDGE: return "edge";
    case MM_SYNC_MODEL: return "model";
    case MM_SYNC_RESIDUAL: return "residual";
    default: return NULL;
    }
}

mm_status mm_sync_write(FILE *f, const mm_sync_record *rec, size_t n, int64_t epoch_ns) {
    if (!f || (n > 0 && !rec)) {
        errno = EINVAL;
        return MM_E_FAILED;
    }
    for (size_t i = 0; i < n; i++) {
        if (!mm__sync_kind_word(rec[i].kind)) {
            errno = EINVAL;
            return MM_E_FAILED;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const mm_sync_record *r = &rec[i];
        int64_t local = (int64_t)((uint64_t)r->local_ns - (uint64_t)epoch_ns);
        if (fprintf(f, "%" PRId32 ",%" PRId32 ",%s,%" PRId32 ",%" PRId64 ",%" PRId64 ",%" PRId64
                       "\n",
                    r->rank, r->phase, mm__sync_kind_word(r->kind), r->peer, local, r->offset_ns,
                    r->rtt_ns) < 0)
            return MM_E_FAILED;
    }
    if (fflush(f) != 0) return MM_E_FAILED;
    return 0;
}
