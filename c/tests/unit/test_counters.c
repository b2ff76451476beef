/* SPDX-License-Identifier: BSD-3-Clause */
/* test_counters.c — the counters' options and arithmetic without MPI_Init: the syntax of
 * --mpit-pvars / --papi, what the parser stores and meta.json's config shows, the mode of
 * --list-pvars, the sum of a variable's elements (unsigned sums wrap as the counters do), and the
 * loop's hooks as no-ops when counters are off. The names against a real library and machine are
 * tested under MPI (c/tests/mpi/test_counters.py). */
#include <stdlib.h>

#include "../../src/counters/counters_internal.h"
#include "mm_check.h"
#include "mm_error.h"
#include "mm_config.h"
#include "mm_counters.h"
#include "mm_output.h"
#include "mm_test_meta.h"

static mm_config cfg;
static char err[2048];

static int parse(int argc, const char **argv) {
    err[0] = '\0';
    return mm_config_parse(&cfg, argc, (char **)argv, err, sizeof err);
}

static void expect(int rc, const char *needle) {
    CHECK_EQ_INT(rc, MM_E_INPUT);
    if (!strstr(err, needle)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", err, needle);
        CHECK(0);
    }
}

static void test_names(void) {
    CHECK_EQ_INT(mm_counters_check_names("mpit-pvars", "all", 1, err, sizeof err), 0);
    CHECK_EQ_INT(mm_counters_check_names("mpit-pvars", "a_b,c.d", 1, err, sizeof err), 0);
    CHECK_EQ_INT(mm_counters_check_names("papi", "perf::CYCLES,PAPI_TOT_INS:u=0", 0, err, sizeof err), 0);
    expect(mm_counters_check_names("papi", "all", 0, err, sizeof err), "'all' is not allowed");
    expect(mm_counters_check_names("mpit-pvars", "all,x", 1, err, sizeof err), "stands alone");
    expect(mm_counters_check_names("mpit-pvars", "x,all", 1, err, sizeof err), "stands alone");
    expect(mm_counters_check_names("mpit-pvars", "a,,b", 1, err, sizeof err), "empty item");
    expect(mm_counters_check_names("mpit-pvars", "a,", 1, err, sizeof err), "empty item");
    expect(mm_counters_check_names("mpit-pvars", "", 1, err, sizeof err), "empty; allowed");
    expect(mm_counters_check_names("mpit-pvars", "a,b,a", 1, err, sizeof err), "'a' is given twice");
    expect(mm_counters_check_names("papi", "a b", 0, err, sizeof err), "'a b' is not a counter name");
    expect(mm_counters_check_names("papi", "x\"y", 0, err, sizeof err), "is not a counter name");
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    expect(mm_counters_check_names("papi", longname, 0, err, sizeof err), "longer than 95");
    /* 65 names: one more than a launch reads */
    char many[65 * 5 + 1] = "";
    for (int i = 0; i < 65; i++) snprintf(many + strlen(many), sizeof many - strlen(many), "%sv%d", i ? "," : "", i);
    expect(mm_counters_check_names("mpit-pvars", many, 1, err, sizeof err), "more than 64 names");
}

static void test_options(void) {
    const char *a[] = {"mpimeter-bench", "--out", "/tmp/mm_unit_counters/none", "--mpit-pvars", "all"};
    CHECK_EQ_INT(parse(5, a), 0);
    CHECK_STR(cfg.counters.mpit_pvars, "all");
    CHECK_STR(cfg.counters.papi_events, "");
    /* meta.json's config shows what was given */
    mm_buf b = mm_test_render_config(&cfg);
    CHECK(strstr(b.data, "\"mpit_pvars\":\"all\"") != NULL || strstr(b.data, "\"mpit_pvars\": \"all\"") != NULL);
    CHECK(strstr(b.data, "\"papi\":null") != NULL || strstr(b.data, "\"papi\": null") != NULL);
    mm_buf_free(&b);

    const char *bad[] = {"mpimeter-bench", "--out", "/tmp/mm_unit_counters/none", "--mpit-pvars", "a,,b"};
    expect(parse(5, bad), "--mpit-pvars: empty item");
    const char *twice[] = {"mpimeter-bench", "--out", "/tmp/x", "--mpit-pvars", "a", "--mpit-pvars", "b"};
    expect(parse(7, twice), "given more than once");
    /* an event no PAPI knows: refused whether PAPI is built in or not, naming the event */
    const char *papi[] = {"mpimeter-bench", "--out", "/tmp/mm_unit_counters/none", "--papi", "NOT_AN_EVENT_X"};
    CHECK_EQ_INT(parse(5, papi), MM_E_INPUT);
    CHECK(strstr(err, mm_papi_built() ? "unknown event 'NOT_AN_EVENT_X'" : "built without PAPI") != NULL);
    /* --validate checks --papi too (mpimeter run asks it before launching) */
    const char *val[] = {"mpimeter-bench", "--validate", "2", "--papi", "NOT_AN_EVENT_X"};
    CHECK_EQ_INT(parse(5, val), MM_E_INPUT);
    /* --list-pvars is a mode of its own: no --out needed, the other checks skipped */
    const char *list[] = {"mpimeter-bench", "--list-pvars"};
    CHECK_EQ_INT(parse(2, list), 0);
    CHECK_EQ_INT(cfg.run.mode, MM_MODE_LIST_PVARS);
    /* counters are options of a launch, not of --sync-check */
    const char *sync[] = {"mpimeter-bench", "--sync-check", "--mpit-pvars", "all"};
    expect(parse(4, sync), "--mpit-pvars does not apply to --sync-check");
}

static void test_option_table(void) {
    const mm_option_spec *o = mm_option_find("mpit-pvars", strlen("mpit-pvars"));
    CHECK(o != NULL);
    if (!o) return;
    CHECK_EQ_INT(o->type, MM_OPT_LIST);
    char allowed[256];
    mm_option_allowed_text(o, allowed, sizeof allowed);
    CHECK(strstr(allowed, "or all") != NULL);
    o = mm_option_find("list-pvars", strlen("list-pvars"));
    CHECK(o != NULL && (o->flags & MM_OPT_F_INFO));
}

static void test_sum(void) {
    unsigned u[3] = {4000000000u, 4000000000u, 5u}; /* summed in 64 bits: no wrap at 2^32 */
    mm_counter_value v = mm_pvar_sum(u, 3, MPI_UNSIGNED);
    CHECK_EQ_INT(v.i, 8000000005LL);
    unsigned long long big[2] = {0xFFFFFFFFFFFFFFFFULL, 2ULL}; /* wraps modulo 2^64, as the counter */
    v = mm_pvar_sum(big, 2, MPI_UNSIGNED_LONG_LONG);
    CHECK_EQ_INT(v.i, 1);
    int s[3] = {-5, 2, 1};
    v = mm_pvar_sum(s, 3, MPI_INT);
    CHECK_EQ_INT(v.i, -2);
    double d[2] = {1.5, 2.25};
    v = mm_pvar_sum(d, 2, MPI_DOUBLE);
    CHECK_NEAR(v.d, 3.75, 0.0);
    /* after − before of a wrapped 64-bit counter, as mm_counters_after computes it */
    mm_counter_value before = {.i = (int64_t)0xFFFFFFFFFFFFFFF0ULL}, after = {.i = 16};
    CHECK_EQ_INT((int64_t)((uint64_t)after.i - (uint64_t)before.i), 32);
    size_t width = 0;
    int is_double = -1;
    const char *word = NULL;
    CHECK_EQ_INT(mm_pvar_type(MPI_DOUBLE, &width, &is_double, &word), 1);
    CHECK_EQ_INT(is_double, 1);
    CHECK_STR(word, "double");
    CHECK_EQ_INT(mm_pvar_type(MPI_CHAR, &width, &is_double, &word), 0);
}

static void test_hooks_off(void) {
    /* counters off: the loop's hooks do nothing, the context does not exist */
    mm_counters_before(NULL);
    mm_counters_after(NULL, 7);
    CHECK_EQ_INT(mm_counters_begin_test(NULL, err, sizeof err), 0);
    mm_counters_end_test(NULL);
    CHECK_EQ_INT(mm_counters_metrics(NULL), 0);
    const char *a[] = {"mpimeter-bench", "--out", "/tmp/mm_unit_counters/none"};
    CHECK_EQ_INT(parse(3, a), 0);
    mm_timer timer;
    memset(&timer, 0, sizeof timer);
    err[0] = 'x';
    CHECK(mm_counters_open(&cfg, MPI_COMM_NULL, &timer, 10, err, sizeof err) == NULL);
    CHECK_STR(err, ""); /* off is not an error */
    mm_buf b = {0};
    mm_json j;
    mm_json_init(&j, &b, 0);
    mm_json_begin_object(&j);
    mm_counters_render_meta(&j, NULL);
    mm_json_end_object(&j);
    CHECK(strstr(b.data, "\"counters\"") != NULL && strstr(b.data, "null") != NULL);
    mm_buf_free(&b);
}

int main(void) {
    test_names();
    test_options();
    test_option_table();
    test_sum();
    test_hooks_off();
    return mm_check_summary("test_counters");
}
