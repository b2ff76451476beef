/* SPDX-License-Identifier: BSD-3-Clause */
/* config.c — what the resolved configuration implies, for the modules that run a launch: the
 * clock sync's default re-sync period, the late-wakeup tolerance, the virtual clocks of each rank.
 * Pure functions of mm_config (the parser is in app/parse.c). */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mm_config.h"
#include "mm_prng.h"

double mm_config_effective_resync_s(const mm_config *cfg, const char *model_kind) {
    if (cfg->cs.resync_given) return cfg->cs.resync_s;
    return strcmp(model_kind, "offset") == 0 ? 1.0 : 0.0;
}

int64_t mm_config_copy_probe_bytes_here(const mm_config *cfg) {
    return cfg->probe.copy_probe_from[0] ? 0 : cfg->probe.copy_probe_bytes;
}

void mm_config_inject_fault(const mm_config *cfg, const char *op, int64_t size, int rank) {
    const mm_inject_opts *in = &cfg->inject;
    if (in->fault == MM_FAULT_NONE || rank != 0 || size != in->fault_size || strcmp(op, in->fault_op) != 0)
        return;
    if (in->fault == MM_FAULT_CRASH) raise(SIGKILL);
    for (;;) raise(SIGSTOP); /* a hang: only a SIGKILL ends it (a SIGCONT stops it again) */
}

int64_t mm_config_start_tolerance_ns(const mm_config *cfg, double timer_overhead_ns) {
    if (cfg->ps.start_tolerance_ns > 0) return cfg->ps.start_tolerance_ns;
    double auto_ns = 10.0 * timer_overhead_ns;
    return auto_ns > 1000.0 ? (int64_t)llround(auto_ns) : 1000;
}

void mm_config_virtual_params(const mm_config *cfg, int rank, mm_virtual_params *vp) {
    memset(vp, 0, sizeof *vp);
    snprintf(vp->base, sizeof vp->base, "%s", cfg->timing.virtual_base);
    if (rank == 0) return;
    /* One independent stream per rank, derived from the seed: reproducible truth for tests. */
    uint64_t state = cfg->plan.seed * 0x9E3779B97F4A7C15ULL + (uint64_t)rank * 0xD1B54A32D192ED03ULL;
    double u = mm_rand_uniform(&state);
    vp->offset_ns = (int64_t)llround((2.0 * u - 1.0) * cfg->timing.virtual_offset_s * 1e9);
    vp->skew_ppm = (mm_rand_next(&state) & 1) ? cfg->timing.virtual_skew_ppm : -cfg->timing.virtual_skew_ppm;
}

int mm_config_roots(const mm_config *cfg, int nprocs, int *out, int max) {
    int n = 0;
    if (cfg->plan.roots.all) {
        for (int r = 0; r < nprocs && n < max; r++) out[n++] = r;
        return n;
    }
    for (int i = 0; i < cfg->plan.roots.n && n < max; i++) out[n++] = cfg->plan.roots.v[i];
    return n;
}

int mm_config_comm_sizes(const mm_config *cfg, int nprocs, int *out) {
    if (cfg->plan.comm_sizes.n == 0) {
        out[0] = nprocs;
        return 1;
    }
    for (int i = 0; i < cfg->plan.comm_sizes.n; i++) out[i] = cfg->plan.comm_sizes.v[i];
    return cfg->plan.comm_sizes.n;
}
