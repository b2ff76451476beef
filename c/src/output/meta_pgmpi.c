/* SPDX-License-Identifier: BSD-3-Clause */
/* meta_pgmpi.c — meta.json "pgmpi": whether libmpimeter-pgmpi.so (c/src/pgmpi/) was preloaded
 * into this launch, with its configuration and the calls it routed (docs/FORMAT.md).
 * What: dlsym(RTLD_DEFAULT, "mpimeter_pgmpi_active") finds the library's report wherever the
 * loader put it (LD_PRELOAD); null when the symbol is absent or the library is not configured.
 * Why here: a launch whose collectives ran a mock-up in their place must say so, or its times
 * would be read as the MPI library's own.
 * Cost: one symbol lookup per rendering of meta.json. */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>

#include "meta_internal.h"
#include "mm_pgmpi.h"

void mm__render_pgmpi(mm_json *j) {
    mm_json_key(j, "pgmpi");
    void *symbol = dlsym(RTLD_DEFAULT, MM_PGMPI_ACTIVE_SYMBOL);
    mm_pgmpi_active_fn active = NULL;
    *(void **)&active = symbol; /* a data pointer to a function pointer: POSIX dlsym's own idiom */
    const mm_pgmpi_report *r = active ? active() : NULL;
    if (!r) {
        mm_json_null(j);
        return;
    }
    char hash[17];
    snprintf(hash, sizeof hash, "%016" PRIx64, r->config_fnv1a64);
    mm_json_begin_object(j);
    mm_json_kv_bool(j, "active", 1);
    mm__kv_text(j, "config", r->config_path);
    mm_json_kv_string(j, "config_fnv1a64", hash);
    mm_json_key(j, "routes");
    mm_json_begin_array(j);
    for (int i = 0; i < r->nroutes; i++) {
        const mm_pgmpi_route *route = &r->routes[i];
        mm_json_begin_object(j);
        mm_json_kv_string(j, "op", route->op);
        mm_json_kv_string(j, "mockup", route->mockup);
        mm_json_kv_int(j, "nprocs", route->nprocs);
        mm_json_kv_int(j, "min_bytes", route->min_bytes);
        mm_json_kv_int(j, "max_bytes", route->max_bytes);
        mm_json_kv_int(j, "calls", route->calls);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
    mm_json_kv_int(j, "original_calls", r->original_calls);
    mm_json_end_object(j);
}
