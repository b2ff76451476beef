/* SPDX-License-Identifier: BSD-3-Clause */
/* test_likwid.c — the LIKWID source (c/src/counters/src_likwid.c) against a stand-in of LIKWID's
 * marker API (fake_likwid/likwid.h, defined here): what each rank checks before a launch (run
 * by likwid-perfctr -m, with the same group, the marker API started), the region started at the
 * "before" reading and stopped and read back at the "after" one, per-repetition counts as the
 * growth of the region's sums, a refused stop as no value (NaN), never 0, and the options:
 * --likwid stored and shown in meta.json's config, refused with --papi. A real LIKWID on a machine
 * with counters is tested under MPI (c/tests/mpi/test_likwid.py). */
#include <math.h>
#include <stdlib.h>

#ifndef MM_HAVE_LIKWID
#define MM_HAVE_LIKWID 1
#endif
#undef MM_LIKWID_DISABLED
#include "../../src/counters/src_likwid.c"
#include "mm_check.h"
#include "mm_config.h"
#include "mm_output.h"
#include "mm_test_meta.h"

/* ---- the stand-in: one group of two events; each stop adds 100 × (its number) and 7 ---- */

static struct {
    int inits, closes, register_rc, fail_stop_at, starts, stops, running;
    double sums[2];
    char calls[64]; /* S start, P stop, G get: the order LIKWID saw */
} fake;

static void fake_call(char c) {
    size_t n = strlen(fake.calls);
    if (n + 1 < sizeof fake.calls) fake.calls[n] = c;
}

void likwid_markerInit(void) { fake.inits++; }
void likwid_markerThreadInit(void) {}
void likwid_markerClose(void) { fake.closes++; }
int likwid_markerRegisterRegion(const char *tag) { return strcmp(tag, "mpimeter") == 0 ? fake.register_rc : -2; }

int likwid_markerStartRegion(const char *tag) {
    fake_call('S');
    if (fake.running || strcmp(tag, "mpimeter") != 0) return -14;
    fake.running = 1;
    fake.starts++;
    return 0;
}

int likwid_markerStopRegion(const char *tag) {
    fake_call('P');
    if (!fake.running || strcmp(tag, "mpimeter") != 0) return -14;
    fake.running = 0;
    if (++fake.stops == fake.fail_stop_at) return -14;
    fake.sums[0] += 100.0 * fake.stops;
    fake.sums[1] += 7.0;
    return 0;
}

void likwid_markerGetRegion(const char *tag, int *nr_events, double *events, double *time, int *count) {
    (void)tag;
    fake_call('G');
    int n = *nr_events < 2 ? *nr_events : 2;
    for (int k = 0; k < n; k++) events[k] = fake.sums[k];
    *nr_events = n;
    *time = 0.0;
    *count = fake.stops;
}

int perfmon_getIdOfActiveGroup(void) { return 0; }
int perfmon_getNumberOfEvents(int gid) { return gid == 0 ? 2 : -1; }
char *perfmon_getEventName(int gid, int k) {
    (void)gid;
    return k == 0 ? "INSTR_RETIRED_ANY" : "CPU_CLK_UNHALTED_CORE";
}
char *perfmon_getCounterName(int gid, int k) {
    (void)gid;
    return k == 0 ? "FIXC0" : "FIXC1";
}

/* ---- the tests ---- */

static char err[2048];

static void expect(int rc, const char *needle) {
    CHECK_EQ_INT(rc, MM_E_INPUT);
    if (!strstr(err, needle)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", err, needle);
        CHECK(0);
    }
}

static void marker_environment(const char *events) {
    setenv("LIKWID_EVENTS", events, 1);
    setenv("LIKWID_THREADS", "0", 1);
    setenv("LIKWID_MODE", "1", 1);
    setenv("LIKWID_FILEPATH", "/tmp/mm_unit_likwid_marker.txt", 1);
}

static void test_check(void) {
    unsetenv("LIKWID_EVENTS");
    unsetenv("LIKWID_THREADS");
    unsetenv("LIKWID_MODE");
    unsetenv("LIKWID_FILEPATH");
    expect(mm_likwid_check("CLOCK", err, sizeof err), "not started by likwid-perfctr -m");
    expect(MM_E_INPUT, "LIKWID_EVENTS, LIKWID_THREADS, LIKWID_MODE, LIKWID_FILEPATH not set");
    expect(MM_E_INPUT, "likwid-mpirun -np {np} -m -g CLOCK {cmd}");
    CHECK_EQ_INT(fake.inits, 0); /* LIKWID is not asked before the environment is right */
    marker_environment("CLOCK");
    unsetenv("LIKWID_FILEPATH");
    expect(mm_likwid_check("CLOCK", err, sizeof err), "(LIKWID_FILEPATH not set)");
    marker_environment("MEM");
    expect(mm_likwid_check("CLOCK", err, sizeof err), "counts -g MEM; give the same group to both");
    marker_environment("CLOCK|MEM");
    expect(mm_likwid_check("CLOCK", err, sizeof err), "several groups (CLOCK|MEM)");
    CHECK_EQ_INT(fake.inits, 0);
    /* the marker API did not start (no counters here): LIKWID's error, what to do */
    marker_environment("CLOCK");
    fake.register_rc = -14;
    expect(mm_likwid_check("CLOCK", err, sizeof err), "marker API did not start in this rank (error -14");
    expect(MM_E_INPUT, "omit --likwid");
    fake.register_rc = 0;
    CHECK_EQ_INT(mm_likwid_check("CLOCK", err, sizeof err), 0);
    CHECK(fake.inits >= 1);
}

static void test_region(void) {
    static mm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    marker_environment("CLOCK");
    snprintf(cfg.counters.likwid_group, sizeof cfg.counters.likwid_group, "CLOCK");
    const mm_counter_source *src = &mm_counters_source_likwid;
    mm_counter_info info[MM_MAX_COUNTERS];
    void *state = NULL;
    int n = -1;
    /* no group: nothing to read, nothing asked of LIKWID */
    mm_config off;
    memset(&off, 0, sizeof off);
    CHECK_EQ_INT(src->open(&state, &off, MPI_COMM_NULL, info, &n, MM_MAX_COUNTERS, err, sizeof err), 0);
    CHECK_EQ_INT(n, 0);
    CHECK(state == NULL);
    /* more events than room beside the other counters: refused, not cut */
    CHECK_EQ_INT(src->open(&state, &cfg, MPI_COMM_NULL, info, &n, 1, err, sizeof err), MM_E_FAILED);
    CHECK(strstr(err, "2 events") != NULL);
    CHECK_EQ_INT(src->open(&state, &cfg, MPI_COMM_NULL, info, &n, MM_MAX_COUNTERS, err, sizeof err), 0);
    CHECK_EQ_INT(n, 2);
    CHECK_STR(info[0].name, "INSTR_RETIRED_ANY:FIXC0");
    CHECK_STR(info[1].name, "CPU_CLK_UNHALTED_CORE:FIXC1");
    CHECK_STR(info[0].source, "likwid");
    CHECK(info[0].is_double && info[0].elements == 1 && info[0].continuous);
    CHECK(strstr(info[1].description, "group CLOCK") != NULL);
    CHECK_EQ_INT(src->begin_test(state, info, err, sizeof err), 0);
    /* two repetitions: counts are what each start-stop added */
    mm_counter_value before[2], after[2];
    fake.calls[0] = '\0';
    for (int rep = 1; rep <= 2; rep++) {
        src->read(state, MM_COUNTER_BEFORE, before);
        CHECK_EQ_INT(fake.running, 1); /* the region runs from the "before" reading ... */
        src->read(state, MM_COUNTER_AFTER, after);
        CHECK_EQ_INT(fake.running, 0); /* ... to the "after" one */
        CHECK_NEAR(after[0].d - before[0].d, 100.0 * rep, 0);
        CHECK_NEAR(after[1].d - before[1].d, 7.0, 0);
    }
    CHECK_STR(fake.calls, "SPGSPG");
    /* a stop LIKWID refuses: no value, not a count of 0 */
    fake.fail_stop_at = 3;
    src->read(state, MM_COUNTER_BEFORE, before);
    src->read(state, MM_COUNTER_AFTER, after);
    CHECK(isnan(after[0].d - before[0].d) && isnan(after[1].d - before[1].d));
    /* the next repetition counts again, from the sums LIKWID kept */
    src->read(state, MM_COUNTER_BEFORE, before);
    src->read(state, MM_COUNTER_AFTER, after);
    CHECK_NEAR(after[0].d - before[0].d, 400.0, 0);
    src->end_test(state);
    src->close(state);
    CHECK_EQ_INT(fake.closes, 1); /* LIKWID writes what likwid-perfctr prints */
}

static int parse(int argc, const char **argv, mm_config *cfg) {
    err[0] = '\0';
    return mm_config_parse(cfg, argc, (char **)argv, err, sizeof err);
}

static void test_options(void) {
    static mm_config cfg;
    const char *given[] = {"mpimeter-bench", "--out", "/tmp/mm_unit_likwid/none", "--likwid", "CLOCK"};
    CHECK_EQ_INT(parse(5, given, &cfg), 0);
    CHECK_STR(cfg.counters.likwid_group, "CLOCK");
    /* meta.json's config shows what was given */
    mm_buf b = mm_test_render_config(&cfg);
    CHECK(strstr(b.data, "\"likwid\":\"CLOCK\"") != NULL || strstr(b.data, "\"likwid\": \"CLOCK\"") != NULL);
    mm_buf_free(&b);
    const char *both[] = {"mpimeter-bench", "--out", "/tmp/mm_unit_likwid/none", "--likwid", "CLOCK",
                          "--papi", "PAPI_TOT_CYC"};
    expect(parse(7, both, &cfg), "--likwid with --papi: both program the CPU's counters");
    const char *spaced[] = {"mpimeter-bench", "--out", "/tmp/mm_unit_likwid/none", "--likwid", "A B"};
    expect(parse(5, spaced, &cfg), "is not a counter name");
}

int main(void) {
    test_check();
    test_region();
    test_options();
    return mm_check_summary("test_likwid");
}
