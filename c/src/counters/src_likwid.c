/* SPDX-License-Identifier: BSD-3-Clause */
/* src_likwid.c — hardware counters in a LIKWID marker region (`--likwid GROUP`), where the
 * ranks run under likwid-perfctr -m and the machine lets LIKWID count.
 *
 * What: one marker region, "mpimeter", started where the other sources take their "before"
 *   reading (before the process sync's wait) and stopped where they take their "after" reading
 *   (right after the call's second timestamp): the region holds the sync's wait and the timed
 *   call, and the timed region itself stays the call alone. After each stop the region's sums
 *   (likwid_markerGetRegion) are read; a repetition's counts are their growth, after − before,
 *   as for every source. LIKWID counts only in a process that likwid-perfctr -m (or
 *   likwid-mpirun -m) started: it programs the group's counters on the CPU it pins the process
 *   to and hands the group to the process (LIKWID_EVENTS, LIKWID_THREADS, LIKWID_MODE,
 *   LIKWID_FILEPATH). Before anything is measured every rank checks that it runs so, with the
 *   group --likwid names (what campaign.json and meta.json then say was counted), starts the
 *   marker API and registers the region; otherwise one line says what failed and what to do
 *   (exit 2, nothing written: never zeros standing in for counts that were not made).
 * Why: Roth 2021 §4.2.1 measured LIKWID per iteration with one region per iteration (dynamic
 *   names): LIKWID's tables at the end then took more than 15 minutes for 1000 iterations on
 *   16×16 ranks. One region read back after each stop gives the same per-repetition counts and
 *   one table at the end (likwid-perfctr's, the sums over all repetitions). §4.2.1 also found
 *   LIKWID perturbing run times more than PAPI: the cost of a start + stop + read is measured
 *   per test (meta.json counters.read_ns_by_test).
 * Cost per repetition: a start and a stop, each reading the group's counters (MSRs through
 *   LIKWID's access daemon, or perf_event reads), and one lookup of the region.
 * Built with LIKWID when CMake finds likwid.h and liblikwid (MM_HAVE_LIKWID); without, --likwid
 * is refused with a message saying so. MM_LIKWID_DISABLED builds the without-LIKWID variant in a
 * LIKWID build (the test binary mpimeter-bench-nolikwid). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counters_internal.h"
#include "mm_error.h"

#if defined(MM_HAVE_LIKWID) && !defined(MM_LIKWID_DISABLED)
#include <likwid.h>
#define MM__LIKWID 1
#else
#define MM__LIKWID 0
#endif

#if MM__LIKWID

/* What likwid-perfctr -m hands to the process it starts (its marker API reads these four). */
static const char *const mm__marker_vars[] = {"LIKWID_EVENTS", "LIKWID_THREADS", "LIKWID_MODE",
                                              "LIKWID_FILEPATH"};

/* This process started by likwid-perfctr -m with `group`. 0, or MM_E_INPUT with the message. */
static mm_status mm__check_environment(const char *group, char *err, size_t len) {
    char missing[96] = "";
    for (size_t i = 0; i < sizeof mm__marker_vars / sizeof mm__marker_vars[0]; i++) {
        if (getenv(mm__marker_vars[i])) continue;
        size_t at = strlen(missing);
        snprintf(missing + at, sizeof missing - at, "%s%s", at ? ", " : "", mm__marker_vars[i]);
    }
    if (missing[0]) {
        snprintf(err, len, "--likwid %s: this rank was not started by likwid-perfctr -m (%s not "
                 "set), so LIKWID counts nothing; start every rank under it, e.g. mpimeter run "
                 "--launcher 'likwid-mpirun -np {np} -m -g %s {cmd}' (docs/GUIDE.md, \"Counters\"), "
                 "or omit --likwid", group, missing, group);
        return MM_E_INPUT;
    }
    const char *events = getenv("LIKWID_EVENTS");
    if (strchr(events, '|')) {
        snprintf(err, len, "--likwid %s: likwid-perfctr was given several groups (%.200s); "
                 "mpimeter reads one: give -g once", group, events);
        return MM_E_INPUT;
    }
    if (strcmp(events, group) != 0) {
        snprintf(err, len, "--likwid %s: this rank's likwid-perfctr counts -g %.200s; give the "
                 "same group to both", group, events);
        return MM_E_INPUT;
    }
    return 0;
}

/* The one region of a launch (registered once: LIKWID's advice, Roth 2021 §4.2.1). */
static const char mm__region[] = "mpimeter";

int mm_likwid_built(void) { return 1; }

/* CMake reads it from likwid.h (its LIKWID_VERSION is an unfilled template in Debian's 5.2.2) */
#ifndef MM_LIKWID_VERSION
#define MM_LIKWID_VERSION ""
#endif

void mm_likwid_version(char *out, size_t len) { snprintf(out, len, "%s", MM_LIKWID_VERSION); }

mm_status mm_likwid_check(const char *group, char *err, size_t len) {
    int rc = mm__check_environment(group, err, len);
    if (rc) return rc;
    likwid_markerInit(); /* a second call does nothing */
    likwid_markerThreadInit();
    /* fails (-EFAULT) when the marker API did not start: LIKWID printed why on stderr */
    rc = likwid_markerRegisterRegion(mm__region);
    int gid = rc == 0 ? perfmon_getIdOfActiveGroup() : -1;
    if (rc != 0 || gid < 0 || perfmon_getNumberOfEvents(gid) <= 0) {
        snprintf(err, len, "--likwid %s: LIKWID's marker API did not start in this rank (error "
                 "%d; LIKWID's own message is above): LIKWID cannot read counters here, as "
                 "likwid-perfctr -C 0 -g %s true shows (it needs /dev/cpu/*/msr, the msr kernel "
                 "module, or in a perf_event build /proc/sys/kernel/perf_event_paranoid <= 0; a VM "
                 "without a virtual PMU has no counters); omit --likwid", group, rc, group);
        return MM_E_INPUT;
    }
    return 0;
}

typedef struct mm__likwid {
    int n;
    double sums[MM_MAX_COUNTERS]; /* the region's sums after the last stop */
} mm__likwid;

static mm_status mm__open(void **state, const mm_config *cfg, MPI_Comm comm, mm_counter_info *info,
                    int *n, int max, char *err, size_t len) {
    (void)comm;
    *n = 0;
    *state = NULL;
    const char *group = cfg->counters.likwid_group;
    if (!group[0]) return 0;
    if (mm_likwid_check(group, err, len) != 0) return MM_E_FAILED; /* done before: a no-op */
    int gid = perfmon_getIdOfActiveGroup();
    int events = perfmon_getNumberOfEvents(gid);
    if (events > max) {
        snprintf(err, len, "--likwid %s: %d events; with the other counters at most %d are read",
                 group, events, max);
        return MM_E_FAILED;
    }
    mm__likwid *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(err, len, "out of memory for the LIKWID events");
        return MM_E_FAILED;
    }
    l->n = events;
    for (int k = 0; k < events; k++) {
        const char *event = perfmon_getEventName(gid, k), *counter = perfmon_getCounterName(gid, k);
        mm_counter_info *in = &info[k];
        memset(in, 0, sizeof *in);
        /* EVENT:COUNTER, as likwid-perfctr -g spells an event set: unique within a group */
        snprintf(in->name, sizeof in->name, "%.60s:%.30s", event ? event : "?", counter ? counter : "?");
        in->source = mm_counters_source_likwid.name;
        snprintf(in->klass, sizeof in->klass, "hardware");
        snprintf(in->datatype, sizeof in->datatype, "double");
        snprintf(in->binding, sizeof in->binding, "none");
        in->elements = 1;
        in->continuous = 1;
        in->is_double = 1; /* LIKWID's sums are doubles: counts, or joules for energy counters */
        snprintf(in->description, sizeof in->description, "LIKWID group %.80s: event %.60s on "
                 "counter %.30s, in the marker region %s", group, event ? event : "?",
                 counter ? counter : "?", mm__region);
    }
    *n = events;
    *state = l;
    return 0;
}

static mm_status mm__begin(void *state, mm_counter_info *info, char *err, size_t len) {
    (void)state, (void)info, (void)err, (void)len;
    return 0; /* the region lives for the launch: nothing to make per test */
}

/* before: the sums so far, then the start (the last thing before the sync's wait); after: the
 * stop (the first thing after the call), then the new sums. A start or stop LIKWID refuses
 * (it says why on stderr) gives NaN, an empty value in counters.csv, never a count of 0. */
static void mm__read(void *state, mm_counter_phase phase, mm_counter_value *out) {
    mm__likwid *l = state;
    int ok;
    if (phase == MM_COUNTER_BEFORE) {
        for (int k = 0; k < l->n; k++) out[k].d = l->sums[k];
        ok = likwid_markerStartRegion(mm__region) == 0;
    } else {
        ok = likwid_markerStopRegion(mm__region) == 0;
        int n = l->n, count = 0;
        double seconds = 0.0;
        if (ok) likwid_markerGetRegion(mm__region, &n, l->sums, &seconds, &count);
        ok = ok && n == l->n;
        for (int k = 0; k < l->n; k++) out[k].d = l->sums[k];
    }
    if (!ok)
        for (int k = 0; k < l->n; k++) out[k].d = NAN;
}

static void mm__end(void *state) { (void)state; }

static void mm__close(void *state) {
    likwid_markerClose(); /* writes what likwid-perfctr prints at the end */
    free(state);
}

const mm_counter_source mm_counters_source_likwid = {
    .name = "likwid",
    .open = mm__open,
    .begin_test = mm__begin,
    .read = mm__read,
    .end_test = mm__end,
    .close = mm__close,
};

#else /* built without LIKWID */

int mm_likwid_built(void) { return 0; }

void mm_likwid_version(char *out, size_t len) { snprintf(out, len, "%s", ""); }

mm_status mm_likwid_check(const char *group, char *err, size_t len) {
    snprintf(err, len, "--likwid %s: this mpimeter-bench was built without LIKWID (likwid.h and "
             "liblikwid were not found when it was built), so it counts nothing; install likwid "
             "(Debian: apt-get install likwid) and rebuild (make build), or omit --likwid", group);
    return MM_E_INPUT;
}

static mm_status mm__open(void **state, const mm_config *cfg, MPI_Comm comm, mm_counter_info *info,
                    int *n, int max, char *err, size_t len) {
    (void)comm; (void)info; (void)max;
    *n = 0;
    *state = NULL;
    if (!cfg->counters.likwid_group[0]) return 0;
    mm_likwid_check(cfg->counters.likwid_group, err, len);
    return MM_E_FAILED;
}

/* open never succeeds with a group here, so the context calls nothing else (counters.c) */
const mm_counter_source mm_counters_source_likwid = {.name = "likwid", .open = mm__open};

#endif
