/* SPDX-License-Identifier: BSD-3-Clause */
/* meta_json.c — the small JSON helpers the meta.json writers share (meta_internal.h): values
 * that are written null when they are not known. Calls nothing but the JSON writer. */
#include <stdlib.h>
#include <string.h>

#include "meta_internal.h"

/* A string, or null when it is NULL or empty. */
void mm__kv_text(mm_json *j, const char *k, const char *v) {
    mm_json_key(j, k);
    if (v && *v)
        mm_json_string(j, v);
    else
        mm_json_null(j);
}

/* A double when known, else null. */
void mm__kv_double_if(mm_json *j, const char *k, int known, double v) {
    mm_json_key(j, k);
    if (known)
        mm_json_double(j, v);
    else
        mm_json_null(j);
}

/* A double, or null when it is not positive (0 = "not applicable" in our structs). */
void mm__kv_positive(mm_json *j, const char *k, double v) {
    mm_json_key(j, k);
    if (v > 0)
        mm_json_double(j, v);
    else
        mm_json_null(j);
}

void mm__int_array(mm_json *j, const int *v, int n) {
    mm_json_begin_array(j);
    for (int i = 0; i < n; i++) mm_json_int(j, v[i]);
    mm_json_end_array(j);
}

void mm__i64_array(mm_json *j, const int64_t *v, int n) {
    mm_json_begin_array(j);
    for (int i = 0; i < n; i++) mm_json_int(j, v[i]);
    mm_json_end_array(j);
}

void mm__double_array(mm_json *j, const double *v, int n) {
    mm_json_begin_array(j);
    for (int i = 0; i < n; i++) mm_json_double(j, v[i]);
    mm_json_end_array(j);
}

/* Words separated by spaces or commas ("constant_tsc nonstop_tsc") as a JSON array. */
void mm__word_array(mm_json *j, const char *words) {
    mm_json_begin_array(j);
    const char *p = words ? words : "";
    while (*p) {
        p += strspn(p, " ,\t\n");
        size_t n = strcspn(p, " ,\t\n");
        if (n == 0) break;
        char w[128];
        snprintf(w, sizeof w, "%.*s", (int)(n < sizeof w ? n : sizeof w - 1), p);
        mm_json_string(j, w);
        p += n;
    }
    mm_json_end_array(j);
}

/* A CPU list "0-1,3" as [0, 1, 3]. Stops at the first malformed item. */
void mm__cpu_list_array(mm_json *j, const char *list) {
    mm_json_begin_array(j);
    const char *p = list ? list : "";
    while (*p) {
        char *e;
        long a = strtol(p, &e, 10), b;
        if (e == p || a < 0) break;
        p = e;
        b = a;
        if (*p == '-') {
            b = strtol(p + 1, &e, 10);
            if (e == p + 1 || b < a || b - a > 65536) break;
            p = e;
        }
        for (long c = a; c <= b; c++) mm_json_int(j, c);
        if (*p != ',') break;
        p++;
    }
    mm_json_end_array(j);
}

const char *mm__test_status_word(int status) {
    switch (status) {
    case MM_TEST_PENDING: return "pending";
    case MM_TEST_RUNNING: return "running";
    case MM_TEST_COMPLETE: return "complete";
    case MM_TEST_FAILED: return "failed";
    case MM_TEST_INCOMPLETE: return "incomplete";
    default: return NULL;
    }
}
