/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_test_files.h — a whole file read into memory, for the unit tests that compare what a writer
 * left on disk (test_output.c against its goldens, test_durability.c). */
#ifndef MM_TEST_FILES_H
#define MM_TEST_FILES_H
#include <stdio.h>

#include "mm_json.h"

/* The file's bytes, NUL-terminated (malloc'd; "" for an empty file), their count in *len if len is
 * not NULL; NULL when the file cannot be opened. */
static inline char *mm_test_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    mm_buf b = {0};
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) mm_buf_append(&b, chunk, n);
    fclose(f);
    if (!b.data) mm_buf_append(&b, "", 0);
    if (len) *len = b.len;
    return b.data;
}

#endif
