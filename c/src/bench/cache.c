/* SPDX-License-Identifier: BSD-3-Clause */
/* cache.c — cold-cache support (Hunold & Carpen-Amarie 2016, §4.7): after each repetition,
 * outside the timed region, write a buffer larger than the caches so that the next call does
 * not find its data cached. */
#include <stddef.h>
#include <stdint.h>

#include "mm_bench.h"

void mm_cold_cache_touch(void *buf, size_t bytes) {
    /* volatile: the compiler must not drop writes whose result nobody reads */
    volatile unsigned char *p = buf;
    static const size_t line = 64;
    for (size_t i = 0; i < bytes; i += line) p[i] = (unsigned char)(p[i] + 1);
}
