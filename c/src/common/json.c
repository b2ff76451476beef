/* SPDX-License-Identifier: BSD-3-Clause */
/* json.c — a growable string buffer and a streaming JSON writer (no reading).
 *
 * What: mm_buf (append, printf) and mm_json (objects, arrays, keys, scalars) with commas and
 * optional 2-space pretty-printing handled by the writer, so callers only say what comes next.
 * Why: meta.json is the self-describing half of the launch folder (Hoefler & Belli 2015,
 * rule 9: report everything needed to reproduce); it must be valid JSON whatever a hostname or
 * environment value contains.
 * Escaping: '"' and '\\' with a backslash; control characters as \u00XX (\n, \t, ... by their
 * short forms); '<', '>' and '&' as \u003c, \u003e, \u0026 and U+2028/U+2029 escaped, so the
 * text can be pasted into an HTML <script> block unchanged; valid UTF-8 passes through;
 * invalid bytes become U+FFFD (the output is always valid UTF-8).
 * Layout (pretty): 2-space indent, object members one per line, arrays of scalars on one line
 * ([1, 2, 3]), objects and arrays inside arrays on their own lines.
 * Numbers: integers exactly; doubles with the fewest of 15/16/17 significant digits that read
 * back to the same double; NaN and infinities as null.
 * Cost: linear in the output; the buffer grows geometrically. */
#include "mm_json.h"
#include "mm_error.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 0, or MM_E_FAILED (b->failed set) when the buffer cannot grow. */
static mm_status mm__buf_reserve(mm_buf *b, size_t extra) {
    if (b->failed) return MM_E_FAILED;
    size_t need = b->len + extra + 1; /* always room for a terminating NUL */
    if (need <= b->cap) return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return MM_E_FAILED;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void mm_buf_append(mm_buf *b, const char *s, size_t n) {
    if (mm__buf_reserve(b, n) != 0) return;
    if (n) memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void mm_buf_printf(mm_buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        mm_buf_append(b, small, (size_t)n);
        return;
    }
    if (mm__buf_reserve(b, (size_t)n) != 0) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void mm_buf_free(mm_buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}

/* Length of the valid UTF-8 sequence starting at s (1..4), or 0 when it is invalid
 * (bad lead byte, truncated, overlong, surrogate, above U+10FFFF). *cp gets the code point. */
static int mm__utf8_seq(const unsigned char *s, uint32_t *cp) {
    unsigned char c = s[0];
    int n;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        n = 2, v = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, v = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        n = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0; /* also stops at the NUL terminator */
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
    *cp = v;
    return n;
}

void mm_json_escape(mm_buf *b, const char *s) {
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    mm_buf_append(b, "\"", 1);
    while (*p) {
        /* copy the longest run that needs no escaping in one go */
        const unsigned char *run = p;
        while (*p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\' && *p != '<' && *p != '>' &&
               *p != '&')
            p++;
        if (p > run) mm_buf_append(b, (const char *)run, (size_t)(p - run));
        if (!*p) break;
        unsigned char c = *p;
        if (c >= 0x80) {
            uint32_t cp;
            int n = mm__utf8_seq(p, &cp);
            if (n == 0) {
                mm_buf_append(b, "\\ufffd", 6);
                p++;
            } else if (cp == 0x2028 || cp == 0x2029) {
                mm_buf_append(b, cp == 0x2028 ? "\\u2028" : "\\u2029", 6);
                p += n;
            } else {
                mm_buf_append(b, (const char *)p, (size_t)n);
                p += n;
            }
            continue;
        }
        const char *esc = NULL;
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default: break;
        }
        if (esc) {
            mm_buf_append(b, esc, 2);
        } else {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            mm_buf_append(b, u, 6);
        }
        p++;
    }
    mm_buf_append(b, "\"", 1);
}

void mm_json_init(mm_json *j, mm_buf *out, int pretty) {
    memset(j, 0, sizeof *j);
    j->out = out;
    j->pretty = pretty;
}

/* Per nesting level, need_comma[] holds these bits (not just a comma flag): */
enum {
    MM__HAS_ITEMS = 1,      /* something was written at this level: the next item needs ',' */
    MM__AFTER_KEY = 2,      /* a key was just written: its value follows directly */
    MM__IN_ARRAY = 4,       /* this level is an array */
    MM__LAST_CONTAINER = 8  /* the previous array item was an object or array */
};

void mm_json_init_value(mm_json *j, mm_buf *out, int pretty, int depth) {
    mm_json_init(j, out, pretty);
    j->depth = depth > 0 && depth < MM_JSON_MAX_DEPTH ? depth : 0;
    if (j->depth > 0) j->need_comma[j->depth] = MM__AFTER_KEY;
}

static void mm__json_newline(mm_json *j) {
    if (!j->pretty) return;
    mm_buf_append(j->out, "\n", 1);
    for (int i = 0; i < j->depth; i++) mm_buf_append(j->out, "  ", 2);
}

/* The depth index whose state we track; deeper nesting still writes valid JSON but shares
 * the last slot (MM_JSON_MAX_DEPTH is far beyond what meta.json needs). */
static int mm__slot(const mm_json *j) {
    return j->depth < MM_JSON_MAX_DEPTH ? j->depth : MM_JSON_MAX_DEPTH - 1;
}

/* Before any key or value: the comma and, pretty-printed, the line break. Object members go
 * one per line; arrays of scalars stay on one line ([1, 2, 3]); an object or array inside an
 * array starts a new line. */
static void mm__json_before_value(mm_json *j, int is_container) {
    int *state = &j->need_comma[mm__slot(j)];
    if (*state & MM__AFTER_KEY) {
        *state &= ~MM__AFTER_KEY;
        return;
    }
    if (j->depth > 0) {
        int has_items = *state & MM__HAS_ITEMS;
        if (has_items) mm_buf_append(j->out, ",", 1);
        if (!(*state & MM__IN_ARRAY) || is_container || (*state & MM__LAST_CONTAINER))
            mm__json_newline(j);
        else if (has_items && j->pretty)
            mm_buf_append(j->out, " ", 1);
    }
    *state |= MM__HAS_ITEMS;
    if (is_container)
        *state |= MM__LAST_CONTAINER;
    else
        *state &= ~MM__LAST_CONTAINER;
}

static void mm__json_open(mm_json *j, char c) {
    mm__json_before_value(j, 1);
    mm_buf_append(j->out, &c, 1);
    j->depth++;
    j->need_comma[mm__slot(j)] = c == '[' ? MM__IN_ARRAY : 0;
}

static void mm__json_close(mm_json *j, char c) {
    int state = j->need_comma[mm__slot(j)];
    int newline = (state & MM__HAS_ITEMS) &&
                  (!(state & MM__IN_ARRAY) || (state & MM__LAST_CONTAINER));
    if (j->depth > 0) j->depth--;
    if (newline) mm__json_newline(j);
    mm_buf_append(j->out, &c, 1);
}

void mm_json_begin_object(mm_json *j) { mm__json_open(j, '{'); }
void mm_json_end_object(mm_json *j) { mm__json_close(j, '}'); }
void mm_json_begin_array(mm_json *j) { mm__json_open(j, '['); }
void mm_json_end_array(mm_json *j) { mm__json_close(j, ']'); }

void mm_json_key(mm_json *j, const char *key) {
    mm__json_before_value(j, 0);
    mm_json_escape(j->out, key ? key : "");
    mm_buf_append(j->out, j->pretty ? ": " : ":", j->pretty ? 2 : 1);
    j->need_comma[mm__slot(j)] |= MM__AFTER_KEY;
}

void mm_json_string(mm_json *j, const char *s) {
    mm__json_before_value(j, 0);
    if (s)
        mm_json_escape(j->out, s);
    else
        mm_buf_append(j->out, "null", 4);
}

void mm_json_int(mm_json *j, int64_t v) {
    mm__json_before_value(j, 0);
    mm_buf_printf(j->out, "%" PRId64, v);
}

/* Shortest of %.15g/%.16g/%.17g that reads back exactly (so 0.1 prints as 0.1). */
static void mm__format_double(double v, char *out, size_t len) {
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(out, len, "%.*g", digits, v);
        if (digits == 17 || strtod(out, NULL) == v) return;
    }
}

void mm_json_double(mm_json *j, double v) {
    mm__json_before_value(j, 0);
    if (!isfinite(v)) {
        mm_buf_append(j->out, "null", 4);
        return;
    }
    char text[40];
    mm__format_double(v, text, sizeof text);
    mm_buf_append(j->out, text, strlen(text));
}

void mm_json_bool(mm_json *j, int v) {
    mm__json_before_value(j, 0);
    if (v)
        mm_buf_append(j->out, "true", 4);
    else
        mm_buf_append(j->out, "false", 5);
}

void mm_json_null(mm_json *j) {
    mm__json_before_value(j, 0);
    mm_buf_append(j->out, "null", 4);
}

void mm_json_raw(mm_json *j, const char *text) {
    mm__json_before_value(j, 0);
    if (text && *text)
        mm_buf_append(j->out, text, strlen(text));
    else
        mm_buf_append(j->out, "null", 4);
}

void mm_json_kv_string(mm_json *j, const char *k, const char *v) {
    mm_json_key(j, k);
    mm_json_string(j, v);
}
void mm_json_kv_int(mm_json *j, const char *k, int64_t v) {
    mm_json_key(j, k);
    mm_json_int(j, v);
}
void mm_json_kv_double(mm_json *j, const char *k, double v) {
    mm_json_key(j, k);
    mm_json_double(j, v);
}
void mm_json_kv_bool(mm_json *j, const char *k, int v) {
    mm_json_key(j, k);
    mm_json_bool(j, v);
}
