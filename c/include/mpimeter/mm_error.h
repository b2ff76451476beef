/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_error.h — one error convention for the library (libuv-style): a function that can fail
 * is declared mm_status and returns MM_OK (0) or a negative code, never a bare -1 nor a process
 * exit code; where a person must be told why, it writes one message into the caller's record
 * (char *err, size_t len: the message, "" when none). A caller passes a callee's status on (or
 * turns it into its own, with its own message). Library code never prints, exits or aborts;
 * app/ (main.c and the commands beside it) prints the message and maps the status to the exit
 * status (mm_exit_code). MPI failures keep their own record, mm_mpi_error (mm_mpi.h), filled by
 * the MM_MPI macro: a function that returns an MPI call's error code returns an int, as MPI's
 * calls do. ctest status_returns and status_messages check both rules. */
#ifndef MM_ERROR_H
#define MM_ERROR_H
#include <stddef.h>

typedef enum mm_status {
    MM_OK = 0,
    MM_E_INPUT = -2,  /* bad input, refused before anything was written (exit 2) */
    MM_E_FAILED = -1, /* a failure while measuring or writing (exit 1) */
    MM_E_NOMEM = -12, /* out of memory (exit 1) */
    MM_E_MPI = -3,    /* an MPI call failed: the call and the library's words in the record (exit 1) */
} mm_status;

/* Writes the formatted message into err (when err and len) and returns MM_E_INPUT, the status
 * of bad input the option checks share (mm_config_parse and the checks it calls return 0 or
 * MM_E_INPUT). */
mm_status mm_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes the formatted message (what failed and why) into err (when err and len) and returns
 * MM_E_FAILED: mm_fail's twin for a failure that is not the input's. */
mm_status mm_error_set(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The process exit status of a status: 0, 2 for bad input, 1 otherwise (app/ only). */
int mm_exit_code(mm_status status);

#endif
