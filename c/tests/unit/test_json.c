/* SPDX-License-Identifier: BSD-3-Clause */
/* test_json.c — the JSON writer: escaping, nesting and commas, numbers, pretty-printing. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mm_check.h"
#include "mm_json.h"

/* Escapes s and returns the literal (static storage of the caller's buffer). */
static const char *escaped(mm_buf *b, const char *s) {
    b->len = 0;
    mm_json_escape(b, s);
    return b->data;
}

static void test_escaping(void) {
    mm_buf b = {0};
    CHECK_STR(escaped(&b, "plain"), "\"plain\"");
    CHECK_STR(escaped(&b, ""), "\"\"");
    CHECK_STR(escaped(&b, "say \"hi\""), "\"say \\\"hi\\\"\"");
    CHECK_STR(escaped(&b, "C:\\dir\\"), "\"C:\\\\dir\\\\\"");
    CHECK_STR(escaped(&b, "a\nb\tc\rd"), "\"a\\nb\\tc\\rd\"");
    CHECK_STR(escaped(&b, "\b\f"), "\"\\b\\f\"");
    CHECK_STR(escaped(&b, "\x01\x1f x"), "\"\\u0001\\u001f x\"");
    /* safe to paste into an HTML <script> block */
    CHECK_STR(escaped(&b, "</script><script>alert(1)</script>"),
              "\"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\"");
    CHECK_STR(escaped(&b, "a&b"), "\"a\\u0026b\"");
    CHECK(strchr(escaped(&b, "<script>"), '<') == NULL);
    /* valid UTF-8 passes through unchanged */
    CHECK_STR(escaped(&b, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
              "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
    /* U+2028 / U+2029 are escaped (they end a line in older JavaScript) */
    CHECK_STR(escaped(&b, "x\xe2\x80\xa8y"), "\"x\\u2028y\"");
    /* invalid bytes become U+FFFD: lone continuation, bad lead, overlong, surrogate, truncated */
    CHECK_STR(escaped(&b, "a\x80z"), "\"a\\ufffdz\"");
    CHECK_STR(escaped(&b, "\xff"), "\"\\ufffd\"");
    CHECK_STR(escaped(&b, "\xc0\xaf"), "\"\\ufffd\\ufffd\"");
    CHECK_STR(escaped(&b, "\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
    CHECK_STR(escaped(&b, "ok\xe2\x82"), "\"ok\\ufffd\\ufffd\"");
    mm_buf_free(&b);
}

static void test_compact_nesting(void) {
    mm_buf b = {0};
    mm_json j;
    mm_json_init(&j, &b, 0);
    mm_json_begin_object(&j);
    mm_json_kv_int(&j, "a", 1);
    mm_json_key(&j, "list");
    mm_json_begin_array(&j);
    mm_json_int(&j, 1);
    mm_json_string(&j, "two");
    mm_json_null(&j);
    mm_json_bool(&j, 1);
    mm_json_bool(&j, 0);
    mm_json_begin_object(&j);
    mm_json_end_object(&j);
    mm_json_begin_array(&j);
    mm_json_end_array(&j);
    mm_json_end_array(&j);
    mm_json_kv_string(&j, "q\"k", NULL);
    mm_json_key(&j, "raw");
    mm_json_raw(&j, "[1,2]");
    mm_json_kv_bool(&j, "t", 1);
    mm_json_kv_double(&j, "d", 0.5);
    mm_json_end_object(&j);
    CHECK_STR(b.data, "{\"a\":1,\"list\":[1,\"two\",null,true,false,{},[]],\"q\\\"k\":null,"
                      "\"raw\":[1,2],\"t\":true,\"d\":0.5}");
    CHECK_EQ_INT(j.depth, 0);
    mm_buf_free(&b);
}

static void test_pretty(void) {
    mm_buf b = {0};
    mm_json j;
    mm_json_init(&j, &b, 1);
    mm_json_begin_object(&j);
    mm_json_kv_int(&j, "schema_version", 1);
    mm_json_key(&j, "xs");
    mm_json_begin_array(&j);
    mm_json_int(&j, 1);
    mm_json_int(&j, 2);
    mm_json_end_array(&j);
    mm_json_key(&j, "empty");
    mm_json_begin_object(&j);
    mm_json_end_object(&j);
    mm_json_key(&j, "o");
    mm_json_begin_object(&j);
    mm_json_kv_string(&j, "k", "v");
    mm_json_end_object(&j);
    mm_json_key(&j, "objs");
    mm_json_begin_array(&j);
    mm_json_begin_object(&j);
    mm_json_kv_int(&j, "a", 1);
    mm_json_end_object(&j);
    mm_json_int(&j, 3);
    mm_json_begin_array(&j);
    mm_json_end_array(&j);
    mm_json_end_array(&j);
    mm_json_end_object(&j);
    /* objects one member per line; arrays of scalars on one line; containers in arrays on
     * their own lines */
    CHECK_STR(b.data, "{\n"
                      "  \"schema_version\": 1,\n"
                      "  \"xs\": [1, 2],\n"
                      "  \"empty\": {},\n"
                      "  \"o\": {\n"
                      "    \"k\": \"v\"\n"
                      "  },\n"
                      "  \"objs\": [\n"
                      "    {\n"
                      "      \"a\": 1\n"
                      "    },\n"
                      "    3,\n"
                      "    []\n"
                      "  ]\n"
                      "}");
    mm_buf_free(&b);
}

static const char *one_double(mm_buf *b, double v) {
    b->len = 0;
    mm_json j;
    mm_json_init(&j, b, 0);
    mm_json_double(&j, v);
    return b->data;
}

static void test_numbers(void) {
    mm_buf b = {0};
    CHECK_STR(one_double(&b, 0.1), "0.1");
    CHECK_STR(one_double(&b, 1.0), "1");
    CHECK_STR(one_double(&b, -2.5e-7), "-2.5e-07");
    CHECK_STR(one_double(&b, 1e300), "1e+300");
    CHECK_STR(one_double(&b, 0.1 + 0.2), "0.30000000000000004");
    CHECK_STR(one_double(&b, NAN), "null");
    CHECK_STR(one_double(&b, INFINITY), "null");
    CHECK_STR(one_double(&b, -INFINITY), "null");
    /* every double reads back exactly */
    const double values[] = {1.0 / 3.0, 2.0 / 3.0, 123456789.123456789, 5e-324, 1.7976931348623157e308,
                             -0.000123, 3.141592653589793};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        CHECK(strtod(one_double(&b, values[i]), NULL) == values[i]);
    b.len = 0;
    mm_json j;
    mm_json_init(&j, &b, 0);
    mm_json_begin_array(&j);
    mm_json_int(&j, INT64_MIN);
    mm_json_int(&j, INT64_MAX);
    mm_json_int(&j, 0);
    mm_json_end_array(&j);
    CHECK_STR(b.data, "[-9223372036854775808,9223372036854775807,0]");
    mm_buf_free(&b);
}

static void test_buf(void) {
    mm_buf b = {0};
    char big[1000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    mm_buf_printf(&b, "<%s|%d>", big, 42); /* longer than the printf fast path */
    CHECK_EQ_INT(b.len, 999 + 5);
    CHECK(b.data[0] == '<' && strcmp(b.data + 1000, "|42>") == 0);
    mm_buf_append(&b, "", 0);
    CHECK_EQ_INT(b.len, 1004);
    mm_buf_free(&b);
    CHECK(b.data == NULL && b.len == 0 && b.cap == 0);
}

static void test_deep_nesting(void) {
    /* deeper than MM_JSON_MAX_DEPTH: still balanced brackets, no crash */
    mm_buf b = {0};
    mm_json j;
    mm_json_init(&j, &b, 0);
    for (int i = 0; i < MM_JSON_MAX_DEPTH + 8; i++) mm_json_begin_array(&j);
    mm_json_int(&j, 7);
    for (int i = 0; i < MM_JSON_MAX_DEPTH + 8; i++) mm_json_end_array(&j);
    CHECK_EQ_INT(j.depth, 0);
    int open = 0, close = 0;
    for (size_t i = 0; i < b.len; i++) open += b.data[i] == '[', close += b.data[i] == ']';
    CHECK_EQ_INT(open, MM_JSON_MAX_DEPTH + 8);
    CHECK_EQ_INT(close, MM_JSON_MAX_DEPTH + 8);
    mm_buf_free(&b);
}

int main(void) {
    test_escaping();
    test_compact_nesting();
    test_pretty();
    test_numbers();
    test_buf();
    test_deep_nesting();
    return mm_check_summary("json");
}
