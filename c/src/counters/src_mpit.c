/* SPDX-License-Identifier: BSD-3-Clause */
/* src_mpit.c — counters from the MPI library's performance variables (MPI_T pvars, MPI-3.1
 * §14.3.7): the variables resolved for the launch (pvar_list.c), read on every rank.
 *
 * What: per launch, MPI_T is initialized and each name looked up (indices are per process);
 *   per test, one session and one handle per variable (bound to the launch's communicator when
 *   the variable is bound to a communicator), started when the variable is not continuous; a
 *   reading reads every handle and sums each variable's elements (per-peer arrays) into one value.
 * Why: sessions and handles cost allocations in the library; made once per test, a repetition
 *   costs only the reads (their time is measured per test: meta.json counters.read_ns_by_test).
 * Cost per reading: one MPI_T_pvar_read per variable (tens of ns each in Open MPI 4.1). */
#include <stdlib.h>
#include <string.h>

#include "counters_internal.h"
#include "mm_error.h"

#ifdef MM_SIMGRID
static mm_status mm__open(void **state, const mm_config *cfg, MPI_Comm comm, mm_counter_info *info,
                    int *n, int max, char *err, size_t len) {
    (void)state; (void)comm; (void)info; (void)max;
    *n = 0;
    if (cfg->counters.ncounter_pvars == 0) return 0;
    snprintf(err, len, "--mpit-pvars: this build (SimGrid SMPI) has no MPI_T interface");
    return MM_E_FAILED;
}
/* open never succeeds with a variable here, so the context calls nothing else (counters.c) */
const mm_counter_source mm_counters_source_mpit = {.name = "mpi_t", .open = mm__open};
#else

typedef struct mm__mpit_var {
    mm_pvar_desc d;
    size_t width;
    int elements;
    void *buf;
    MPI_T_pvar_handle handle;
    int has_handle;
} mm__mpit_var;

typedef struct mm__mpit {
    MPI_Comm comm;
    int n;
    mm__mpit_var v[MM_MAX_COUNTERS];
    MPI_T_pvar_session session;
    int has_session;
    int initialized;
} mm__mpit;

static void mm__end(void *state) {
    mm__mpit *m = state;
    if (!m) return;
    for (int k = 0; k < m->n; k++) {
        mm__mpit_var *v = &m->v[k];
        if (v->has_handle) {
            if (!v->d.continuous) MPI_T_pvar_stop(m->session, v->handle);
            MPI_T_pvar_handle_free(m->session, &v->handle);
        }
        v->has_handle = 0;
        free(v->buf);
        v->buf = NULL;
    }
    if (m->has_session) MPI_T_pvar_session_free(&m->session);
    m->has_session = 0;
}

static void mm__close(void *state) {
    mm__mpit *m = state;
    if (!m) return;
    mm__end(m);
    if (m->initialized) mm_pvar_finalize();
    free(m);
}

static mm_status mm__open(void **state, const mm_config *cfg, MPI_Comm comm, mm_counter_info *info,
                    int *n, int max, char *err, size_t len) {
    *n = 0;
    *state = NULL;
    if (cfg->counters.ncounter_pvars == 0) return 0;
    if (cfg->counters.ncounter_pvars > max) {
        snprintf(err, len, "--mpit-pvars: more than %d counters", max);
        return MM_E_FAILED;
    }
    mm__mpit *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(err, len, "out of memory for the performance variables");
        return MM_E_FAILED;
    }
    m->comm = comm;
    if (mm_pvar_init() != 0) {
        snprintf(err, len, "--mpit-pvars: MPI_T cannot be initialized on this rank");
        free(m);
        return MM_E_FAILED;
    }
    m->initialized = 1;
    for (int k = 0; k < cfg->counters.ncounter_pvars; k++) {
        mm__mpit_var *v = &m->v[k];
        const char *name = cfg->counters.counter_pvars[k];
        char why[MM_PVAR_WHY_LEN];
        int is_double = 0;
        const char *type = NULL;
        if (mm_pvar_find(name, &v->d) != 0) {
            snprintf(err, len, "--mpit-pvars: performance variable '%s' does not exist on this rank", name);
            mm__close(m);
            return MM_E_FAILED;
        }
        if (mm_pvar_why_not(&v->d, why, sizeof why)) {
            snprintf(err, len, "--mpit-pvars: '%s' cannot be read on this rank: %s", name, why);
            mm__close(m);
            return MM_E_FAILED;
        }
        mm_pvar_type(v->d.dt, &v->width, &is_double, &type);
        mm_counter_info *in = &info[k];
        memset(in, 0, sizeof *in);
        snprintf(in->name, sizeof in->name, "%s", name);
        in->source = mm_counters_source_mpit.name;
        snprintf(in->klass, sizeof in->klass, "%s", mm_pvar_class_word(v->d.klass));
        snprintf(in->datatype, sizeof in->datatype, "%s", type);
        snprintf(in->binding, sizeof in->binding, "%s", mm_pvar_bind_word(v->d.bind));
        in->continuous = v->d.continuous;
        in->is_double = is_double;
        snprintf(in->description, sizeof in->description, "%s", v->d.description);
        m->n++;
    }
    *n = m->n;
    *state = m;
    return 0;
}

static mm_status mm__begin(void *state, mm_counter_info *info, char *err, size_t len) {
    mm__mpit *m = state;
    if (!m) return 0;
    char word[32];
    int rc = MPI_T_pvar_session_create(&m->session);
    if (rc != MPI_SUCCESS) {
        snprintf(err, len, "MPI_T_pvar_session_create failed (%s)", mm_pvar_error_word(rc, word, sizeof word));
        return MM_E_FAILED;
    }
    m->has_session = 1;
    for (int k = 0; k < m->n; k++) {
        mm__mpit_var *v = &m->v[k];
        MPI_Comm *obj = &m->comm;
        rc = MPI_T_pvar_handle_alloc(m->session, v->d.index,
                                     v->d.bind == MPI_T_BIND_MPI_COMM ? (void *)obj : NULL,
                                     &v->handle, &v->elements);
        if (rc != MPI_SUCCESS || v->elements < 1 || v->elements > MM_PVAR_MAX_ELEMENTS) {
            snprintf(err, len, "performance variable %s: no handle (%s, %d values)", v->d.name,
                     mm_pvar_error_word(rc, word, sizeof word), v->elements);
            if (rc == MPI_SUCCESS) MPI_T_pvar_handle_free(m->session, &v->handle);
            mm__end(m);
            return MM_E_FAILED;
        }
        v->has_handle = 1;
        info[k].elements = v->elements;
        v->buf = calloc((size_t)v->elements, v->width);
        if (!v->buf) {
            snprintf(err, len, "performance variable %s: out of memory", v->d.name);
            mm__end(m);
            return MM_E_FAILED;
        }
        if (!v->d.continuous && (rc = MPI_T_pvar_start(m->session, v->handle)) != MPI_SUCCESS) {
            snprintf(err, len, "performance variable %s: MPI_T_pvar_start failed (%s)", v->d.name,
                     mm_pvar_error_word(rc, word, sizeof word));
            mm__end(m);
            return MM_E_FAILED;
        }
    }
    return 0;
}

/* A failed read leaves the value it had: the delta of that repetition is then 0 for it. The
 * handles were tried before the launch and at the start of the test, so this does not happen in
 * practice; checking here would put a branch on every read for nothing. */
static void mm__read(void *state, mm_counter_phase phase, mm_counter_value *out) {
    (void)phase;
    mm__mpit *m = state;
    for (int k = 0; k < m->n; k++) {
        mm__mpit_var *v = &m->v[k];
        MPI_T_pvar_read(m->session, v->handle, v->buf);
        out[k] = mm_pvar_sum(v->buf, v->elements, v->d.dt);
    }
}

const mm_counter_source mm_counters_source_mpit = {
    .name = "mpi_t",
    .open = mm__open,
    .begin_test = mm__begin,
    .read = mm__read,
    .end_test = mm__end,
    .close = mm__close,
};
#endif
