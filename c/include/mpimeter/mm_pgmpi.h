/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_pgmpi.h — what libmpimeter-pgmpi.so (c/src/pgmpi/) tells a program it is preloaded into:
 * the library exports mpimeter_pgmpi_active(), mpimeter-bench looks it up with
 * dlsym(RTLD_DEFAULT, MM_PGMPI_ACTIVE_SYMBOL) and writes the report into meta.json "pgmpi"
 * (docs/FORMAT.md). Also the configuration's limits and the routes the library knows, which
 * `mpimeter guidelines --replace` writes (docs/GUIDE.md, "Replacing a violated guideline"). */
#ifndef MM_PGMPI_H
#define MM_PGMPI_H
#include <stdint.h>

#define MM_PGMPI_ACTIVE_SYMBOL "mpimeter_pgmpi_active"
#define MM_PGMPI_CONFIG_ENV "MPIMETER_PGMPI_CONFIG"
/* The configuration's first line: the format and its version (and how the command that
 * writes it knows a file as its own). */
#define MM_PGMPI_CONFIG_HEADER "# mpimeter-pgmpi-config 1"
#define MM_PGMPI_MAX_ROUTES 64
#define MM_PGMPI_MAX_CONFIG_BYTES 65536
#define MM_PGMPI_MAX_LINE 256

typedef struct mm_pgmpi_route {
    const char *op;      /* the intercepted call's operation ("allreduce") */
    const char *mockup;  /* what it runs instead (an op of the table with mockup_of op) */
    int nprocs;          /* on communicators of this size */
    int64_t min_bytes;   /* for calls of min_bytes..max_bytes (count x the datatype's size) */
    int64_t max_bytes;
    int64_t calls;       /* calls routed so far */
} mm_pgmpi_route;

typedef struct mm_pgmpi_report {
    const char *config_path;    /* MPIMETER_PGMPI_CONFIG */
    uint64_t config_fnv1a64;    /* FNV-1a (64 bits) of the configuration's bytes */
    int nroutes;
    const mm_pgmpi_route *routes;
    int64_t original_calls;     /* intercepted calls no route covered (the original ran) */
} mm_pgmpi_report;

typedef const mm_pgmpi_report *(*mm_pgmpi_active_fn)(void);

#endif
