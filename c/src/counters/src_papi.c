/* SPDX-License-Identifier: BSD-3-Clause */
/* src_papi.c — hardware counters through PAPI (`--papi EVENTS`), where the machine offers them.
 *
 * What: the events are checked before anything is measured — PAPI in the build, each name an
 *   event PAPI knows, its component enabled with counters (PAPI's own availability check: the
 *   component's `disabled` flag and reason, its number of counters), the events countable
 *   together — and refused with one line naming the event and PAPI's reason otherwise (exit 2,
 *   nothing written: never zeros standing in for counts that were not made). Per test one event
 *   set is created and started; a reading is one PAPI_read of all events.
 * Why: Roth 2021 §4.6 correlates hardware counters (cache misses, cycles) with slow iterations.
 *   This machine (a VM) has none: perf_event reports "no default PMU", which PAPI reports as its
 *   perf_event component disabled; the message says so.
 * Cost per reading: one PAPI_read (a system call per event group with perf_event).
 * Built with PAPI when CMake finds papi.h and libpapi (MM_HAVE_PAPI); without, --papi is refused
 * with a message saying so. MM_PAPI_DISABLED builds the without-PAPI variant in a PAPI build
 * (the test binary mpimeter-bench-nopapi). */
#include <stdlib.h>
#include <string.h>

#include "counters_internal.h"
#include "mm_error.h"

#if defined(MM_HAVE_PAPI) && !defined(MM_PAPI_DISABLED)
#include <papi.h>
#define MM__PAPI 1
#else
#define MM__PAPI 0
#endif

/* Splits a checked --papi text (mm_counters_check_names) into names; the count. */
static int mm__split(const char *text, char (*names)[MM_COUNTER_NAME_LEN], int max) {
    int n = 0;
    for (const char *p = text; *p && n < max;) {
        size_t item = strcspn(p, ",");
        snprintf(names[n++], MM_COUNTER_NAME_LEN, "%.*s", (int)item, p);
        p += item + (p[item] == ',');
    }
    return n;
}

#if MM__PAPI

int mm_papi_built(void) { return 1; }

void mm_papi_version(char *out, size_t len) {
    snprintf(out, len, "%d.%d.%d.%d", PAPI_VERSION_MAJOR(PAPI_VERSION),
             PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION),
             PAPI_VERSION_INCREMENT(PAPI_VERSION));
}

static mm_status mm__init(char *err, size_t len) {
    if (PAPI_is_initialized() != PAPI_NOT_INITED) return 0;
    int rc = PAPI_library_init(PAPI_VER_CURRENT);
    if (rc == PAPI_VER_CURRENT) return 0;
    snprintf(err, len, "--papi: PAPI could not start (%s)", rc > 0 ? "another PAPI version" : PAPI_strerror(rc));
    return MM_E_INPUT;
}

/* PAPI's own verdict on the component that counts `code`: 1 with why when it cannot count. */
static int mm__component_problem(int code, char *why, size_t len) {
    int cidx = PAPI_get_event_component(code);
    const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
    if (!ci) {
        snprintf(why, len, "PAPI does not say which component counts it");
        return 1;
    }
    if (ci->disabled) {
        snprintf(why, len, "PAPI's %.60s component is disabled: %.160s", ci->name, ci->disabled_reason);
        return 1;
    }
    if (ci->num_cntrs <= 0) {
        snprintf(why, len, "PAPI's %s component has no counters", ci->name);
        return 1;
    }
    return 0;
}

/* What PAPI says of the CPU's counters (component 0), for a message: "" when it has some. */
static void mm__machine_note(char *note, size_t len) {
    const PAPI_component_info_t *ci = PAPI_get_component_info(0);
    note[0] = '\0';
    if (ci && (ci->disabled || ci->num_cntrs <= 0))
        snprintf(note, len, "; this machine offers no hardware counters anyway (PAPI's %.60s component: %.160s)",
                 ci->name, ci->disabled ? ci->disabled_reason : "no counters");
}

mm_status mm_papi_check(const char *events, char *err, size_t len) {
    int rc = mm__init(err, len);
    if (rc) return rc;
    char names[MM_MAX_COUNTERS][MM_COUNTER_NAME_LEN];
    int codes[MM_MAX_COUNTERS], n = mm__split(events, names, MM_MAX_COUNTERS);
    char note[320], why[320];
    for (int k = 0; k < n; k++) {
        rc = PAPI_event_name_to_code(names[k], &codes[k]);
        if (rc != PAPI_OK) {
            mm__machine_note(note, sizeof note);
            snprintf(err, len, "--papi: unknown event '%s' (PAPI: %s); papi_avail and "
                     "papi_native_avail list the events%s", names[k], PAPI_strerror(rc), note);
            return MM_E_INPUT;
        }
    }
    for (int k = 0; k < n; k++) {
        if (mm__component_problem(codes[k], why, sizeof why)) {
            snprintf(err, len, "--papi %s: no hardware counters on this machine: %s; nothing "
                     "can be counted (omit --papi)", names[k], why);
            return MM_E_INPUT;
        }
    }
    int set = PAPI_NULL;
    if ((rc = PAPI_create_eventset(&set)) != PAPI_OK) {
        snprintf(err, len, "--papi: PAPI_create_eventset failed (%s)", PAPI_strerror(rc));
        return MM_E_INPUT;
    }
    int result = 0;
    for (int k = 0; k < n && result == 0; k++) {
        if ((rc = PAPI_add_event(set, codes[k])) != PAPI_OK) {
            snprintf(err, len, "--papi %s: cannot be counted%s (PAPI: %s)", names[k],
                     k ? " together with the events before it" : "", PAPI_strerror(rc));
            result = 2;
        }
    }
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    return result;
}

typedef struct mm__papi {
    int n, codes[MM_MAX_COUNTERS];
    int set, running;
    long long values[MM_MAX_COUNTERS];
} mm__papi;

static mm_status mm__open(void **state, const mm_config *cfg, MPI_Comm comm, mm_counter_info *info,
                    int *n, int max, char *err, size_t len) {
    (void)comm;
    *n = 0;
    *state = NULL;
    if (!cfg->counters.papi_events[0]) return 0;
    /* every rank checks its own host: counters may exist on some nodes only */
    if (mm_papi_check(cfg->counters.papi_events, err, len) != 0) return MM_E_FAILED;
    mm__papi *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, len, "out of memory for the PAPI events");
        return MM_E_FAILED;
    }
    p->set = PAPI_NULL;
    char names[MM_MAX_COUNTERS][MM_COUNTER_NAME_LEN];
    p->n = mm__split(cfg->counters.papi_events, names, max < MM_MAX_COUNTERS ? max : MM_MAX_COUNTERS);
    for (int k = 0; k < p->n; k++) {
        PAPI_event_name_to_code(names[k], &p->codes[k]);
        PAPI_event_info_t ei;
        memset(&ei, 0, sizeof ei);
        mm_counter_info *in = &info[k];
        memset(in, 0, sizeof *in);
        snprintf(in->name, sizeof in->name, "%.*s", MM_COUNTER_NAME_LEN - 1, names[k]);
        in->source = mm_counters_source_papi.name;
        snprintf(in->klass, sizeof in->klass, "hardware");
        snprintf(in->datatype, sizeof in->datatype, "long long");
        snprintf(in->binding, sizeof in->binding, "none");
        in->elements = 1;
        in->continuous = 1;
        if (PAPI_get_event_info(p->codes[k], &ei) == PAPI_OK)
            snprintf(in->description, sizeof in->description, "%.255s",
                     ei.long_descr[0] ? ei.long_descr : ei.short_descr);
    }
    *n = p->n;
    *state = p;
    return 0;
}

static void mm__end(void *state) {
    mm__papi *p = state;
    if (!p || p->set == PAPI_NULL) return;
    if (p->running) PAPI_stop(p->set, p->values);
    p->running = 0;
    PAPI_cleanup_eventset(p->set);
    PAPI_destroy_eventset(&p->set);
    p->set = PAPI_NULL;
}

static mm_status mm__begin(void *state, mm_counter_info *info, char *err, size_t len) {
    (void)info;
    mm__papi *p = state;
    if (!p) return 0;
    int rc = PAPI_create_eventset(&p->set);
    for (int k = 0; k < p->n && rc == PAPI_OK; k++) rc = PAPI_add_event(p->set, p->codes[k]);
    if (rc == PAPI_OK) rc = PAPI_start(p->set);
    if (rc != PAPI_OK) {
        snprintf(err, len, "PAPI event set: %s", PAPI_strerror(rc));
        mm__end(p);
        return MM_E_FAILED;
    }
    p->running = 1;
    return 0;
}

static void mm__read(void *state, mm_counter_phase phase, mm_counter_value *out) {
    (void)phase;
    mm__papi *p = state;
    PAPI_read(p->set, p->values);
    for (int k = 0; k < p->n; k++) out[k].i = (int64_t)p->values[k];
}

static void mm__close(void *state) {
    mm__end(state);
    free(state);
}

const mm_counter_source mm_counters_source_papi = {
    .name = "papi",
    .open = mm__open,
    .begin_test = mm__begin,
    .read = mm__read,
    .end_test = mm__end,
    .close = mm__close,
};

#else /* built without PAPI */

int mm_papi_built(void) { return 0; }

void mm_papi_version(char *out, size_t len) { snprintf(out, len, "%s", ""); }

mm_status mm_papi_check(const char *events, char *err, size_t len) {
    char first[MM_COUNTER_NAME_LEN];
    mm__split(events, &first, 1);
    snprintf(err, len, "--papi %s: this mpimeter-bench was built without PAPI (papi.h and libpapi "
             "were not found when it was built), so it reads no hardware counters; install "
             "libpapi-dev and rebuild (make build), or omit --papi", first);
    return MM_E_INPUT;
}

static mm_status mm__open(void **state, const mm_config *cfg, MPI_Comm comm, mm_counter_info *info,
                    int *n, int max, char *err, size_t len) {
    (void)comm; (void)info; (void)max;
    *n = 0;
    *state = NULL;
    if (!cfg->counters.papi_events[0]) return 0;
    mm_papi_check(cfg->counters.papi_events, err, len);
    return MM_E_FAILED;
}

/* open never succeeds with an event here, so the context calls nothing else (counters.c) */
const mm_counter_source mm_counters_source_papi = {.name = "papi", .open = mm__open};

#endif
