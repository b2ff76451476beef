/* SPDX-License-Identifier: BSD-3-Clause */
/* error.c — formatted messages into the caller's error record (mm_error.h). */
#include <stdarg.h>
#include <stdio.h>

#include "mm_error.h"

mm_status mm_fail(char *err, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && len) vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return MM_E_INPUT;
}

mm_status mm_error_set(char *err, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (err && len) vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return MM_E_FAILED;
}

int mm_exit_code(mm_status status) {
    if (status == MM_OK) return 0;
    return status == MM_E_INPUT ? 2 : 1;
}
