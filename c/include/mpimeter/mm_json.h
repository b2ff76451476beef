/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_json.h — a small streaming JSON writer (escaping, nesting, commas) over a growable
 * string buffer. No reading. */
#ifndef MM_JSON_H
#define MM_JSON_H
#include <stddef.h>
#include <stdint.h>

typedef struct mm_buf {
    char *data;
    size_t len, cap;
    /* sticky: an append found no memory; the text is incomplete and appends are ignored from
     * then on (whoever writes the text to a file refuses it: mm_outdir_write_meta) */
    int failed;
} mm_buf;
void mm_buf_append(mm_buf *b, const char *s, size_t n);
void mm_buf_printf(mm_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mm_buf_free(mm_buf *b);

#define MM_JSON_MAX_DEPTH 32
typedef struct mm_json {
    mm_buf *out;
    int depth;
    int need_comma[MM_JSON_MAX_DEPTH];
    int pretty;
} mm_json;

void mm_json_init(mm_json *j, mm_buf *out, int pretty);
/* A writer for one value that is embedded (mm_json_raw) after a key at nesting level `depth` of
 * another document: the same bytes as if it were written there. */
void mm_json_init_value(mm_json *j, mm_buf *out, int pretty, int depth);
void mm_json_begin_object(mm_json *j);
void mm_json_end_object(mm_json *j);
void mm_json_begin_array(mm_json *j);
void mm_json_end_array(mm_json *j);
void mm_json_key(mm_json *j, const char *key); /* inside an object, before a value */
void mm_json_string(mm_json *j, const char *s); /* NULL writes null */
void mm_json_int(mm_json *j, int64_t v);
void mm_json_double(mm_json *j, double v); /* non-finite writes null */
void mm_json_bool(mm_json *j, int v);
void mm_json_null(mm_json *j);
void mm_json_raw(mm_json *j, const char *text); /* already-valid JSON value */
/* key + value shorthands */
void mm_json_kv_string(mm_json *j, const char *k, const char *v);
void mm_json_kv_int(mm_json *j, const char *k, int64_t v);
void mm_json_kv_double(mm_json *j, const char *k, double v);
void mm_json_kv_bool(mm_json *j, const char *k, int v);
/* Escapes s as a JSON string literal (with quotes) into b. */
void mm_json_escape(mm_buf *b, const char *s);

#endif
