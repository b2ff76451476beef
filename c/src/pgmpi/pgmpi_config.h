/* SPDX-License-Identifier: BSD-3-Clause */
/* pgmpi_config.h — the configuration of libmpimeter-pgmpi.so read and validated (pgmpi_config.c). */
#ifndef MM_PGMPI_CONFIG_H
#define MM_PGMPI_CONFIG_H
#include <stddef.h>
#include <stdint.h>

#include "mm_error.h"
#include "mm_pgmpi.h"

/* The replacements the library can make (a route's op and mockup point into this table). */
typedef struct mm_pgmpi_known_route {
    const char *op;
    const char *mockup;
} mm_pgmpi_known_route;
extern const mm_pgmpi_known_route mm_pgmpi_known[];
extern const int mm_pgmpi_known_count;

/* Reads the file at path (at most MM_PGMPI_MAX_CONFIG_BYTES) into routes (at most
 * MM_PGMPI_MAX_ROUTES) and its FNV-1a hash. Returns 0,
 * or MM_E_INPUT with one line in err saying what was wrong and what is allowed. */
mm_status mm_pgmpi_read_config(const char *path, mm_pgmpi_route *routes, int *nroutes, uint64_t *fnv,
                               char *err, size_t errlen);

#endif
