/* SPDX-License-Identifier: BSD-3-Clause */
/* pvar_list.c — the MPI library's catalog of performance variables: the record `--list-pvars`
 * shows (mm_pvar_list; app/lists.c prints it), and the resolution of `--mpit-pvars` (rank 0,
 * after MPI_Init, before the launch folder exists).
 *
 * What: every valid index of the library's pvars is described; those mpimeter can read (a number,
 *   bound to nothing or to a communicator) get a trial read in a probe process (pvar.c). `all`
 *   keeps every variable that passed, in the library's order (at most MM_MAX_COUNTERS), and
 *   records the others with why they were left out (meta.json counters.left_out); named
 *   variables must each pass, else the launch is refused: one line naming the variable and the
 *   reason, exit 2 on every rank, nothing written.
 * Why: what a library exposes differs between libraries, builds and settings (Open MPI 4.1.4
 *   here: ~30 variables, coll_monitoring_* only with OMPI_MCA_pml_monitoring_enable=1; MPICH 4.0.2
 *   as Debian builds it: none), so the list is asked of the library at run time, never kept here.
 * Cost: one description per index and the probes (pvar.c); before any test. */
#include <stdlib.h>
#include <string.h>

#include "counters_internal.h"
#include "mm_error.h"
#include "mm_json.h"

/* The first line of MPI_Get_library_version, for messages. */
static void mm__library_line(char *out, size_t len) {
    char text[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    if (MPI_Get_library_version(text, &n) != MPI_SUCCESS) text[0] = '\0';
    text[sizeof text - 1] = '\0';
    text[strcspn(text, "\r\n")] = '\0';
    /* one line with single spaces: MPICH separates its fields with tabs */
    size_t used = 0;
    for (const char *p = text; *p && used + 1 < len && used < 200; p++) {
        char ch = *p == '\t' ? ' ' : *p;
        if (ch == ' ' && (used == 0 || out[used - 1] == ' ')) continue;
        out[used++] = ch;
    }
    while (used > 0 && (out[used - 1] == ' ' || out[used - 1] == ',')) used--;
    out[used] = '\0';
}

/* The catalog: every valid index described, what can be read tried in a probe process. */
typedef struct mm__catalog {
    int nindices, n; /* indices the library has; valid variables among them */
    mm_pvar_desc *d;
    int *ok, *elements;
    char (*why)[MM_PVAR_WHY_LEN];
} mm__catalog;

static void mm__catalog_free(mm__catalog *c) {
    free(c->d);
    free(c->ok);
    free(c->elements);
    free(c->why);
    memset(c, 0, sizeof *c);
}

/* Describes the valid indices; tries the readable-looking ones when `probe`. -1: no memory. */
static mm_status mm__catalog_read(mm__catalog *c, MPI_Comm comm, int probe) {
    memset(c, 0, sizeof *c);
    c->nindices = mm_pvar_count();
    size_t cap = (size_t)(c->nindices > 0 ? c->nindices : 1);
    c->d = calloc(cap, sizeof *c->d);
    c->ok = calloc(cap, sizeof *c->ok);
    c->elements = calloc(cap, sizeof *c->elements);
    c->why = calloc(cap, sizeof *c->why);
    int *candidate = calloc(cap, sizeof *candidate);
    mm_pvar_desc *tried = calloc(cap, sizeof *tried);
    int *tried_ok = calloc(cap, sizeof *tried_ok), *tried_elements = calloc(cap, sizeof(int));
    char (*tried_why)[MM_PVAR_WHY_LEN] = calloc(cap, sizeof *tried_why);
    int ok = c->d && c->ok && c->elements && c->why && candidate && tried && tried_ok &&
             tried_elements && tried_why;
    int ntried = 0;
    for (int i = 0; ok && i < c->nindices; i++) {
        if (mm_pvar_describe(i, &c->d[c->n]) != 0) continue;
        if (!mm_pvar_why_not(&c->d[c->n], c->why[c->n], MM_PVAR_WHY_LEN)) {
            candidate[c->n] = 1;
            tried[ntried++] = c->d[c->n];
        }
        c->n++;
    }
    if (ok && probe && ntried > 0) mm_pvar_probe(tried, ntried, comm, tried_ok, tried_elements, tried_why);
    for (int i = 0, t = 0; ok && i < c->n; i++) {
        if (!candidate[i]) continue;
        c->ok[i] = probe ? tried_ok[t] : 1;
        c->elements[i] = probe ? tried_elements[t] : 0;
        if (probe && !tried_ok[t]) snprintf(c->why[i], MM_PVAR_WHY_LEN, "%s", tried_why[t]);
        t++;
    }
    free(candidate);
    free(tried);
    free(tried_ok);
    free(tried_elements);
    free(tried_why);
    if (!ok) mm__catalog_free(c);
    return ok ? 0 : MM_E_FAILED;
}

int mm_counters_list_pvars(mm_pvar_list *list, MPI_Comm comm) {
    memset(list, 0, sizeof *list);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank != 0) return 0;
    mm__library_line(list->library, sizeof list->library);
    if (mm_pvar_init() != 0) return 0;
    list->has_mpit = 1;
    mm__catalog c;
    int rc = mm__catalog_read(&c, comm, 1) != 0 ? MM_E_NOMEM : 0;
    if (rc == 0 && c.n > 0 && !(list->entries = calloc((size_t)c.n, sizeof *list->entries)))
        rc = MM_E_NOMEM;
    if (rc == 0) {
        list->nindices = c.nindices;
        list->n = c.n;
        for (int i = 0; i < c.n; i++) {
            mm_pvar_entry *e = &list->entries[i];
            snprintf(e->name, sizeof e->name, "%s", c.d[i].name);
            snprintf(e->description, sizeof e->description, "%s", c.d[i].description);
            e->klass = mm_pvar_class_word(c.d[i].klass);
            e->datatype = "not a number";
            mm_pvar_type(c.d[i].dt, NULL, NULL, &e->datatype);
            e->binding = mm_pvar_bind_word(c.d[i].bind);
            e->readable = c.ok[i];
            e->elements = c.elements[i];
            if (!c.ok[i]) snprintf(e->why, sizeof e->why, "%s", c.why[i]);
        }
    }
    mm__catalog_free(&c);
    mm_pvar_finalize();
    return rc;
}

void mm_pvar_list_free(mm_pvar_list *list) {
    free(list->entries);
    memset(list, 0, sizeof *list);
}

/* The names mpimeter can read here, comma-separated, for a message (at most ~600 characters). */
static void mm__offered(const mm__catalog *c, char *out, size_t len) {
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < c->n && used + 1 < len; i++) {
        if (!c->ok[i]) continue;
        size_t need = strlen(c->d[i].name) + 2;
        if (used + need + 8 >= len) {
            snprintf(out + used, len - used, ", ...");
            return;
        }
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "", c->d[i].name);
    }
}

static int mm__index_of(const mm__catalog *c, const char *name) {
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->d[i].name, name) == 0) return i;
    return -1;
}

/* `all`: every variable that passed, once per name, in the library's order; the rest with why. */
static void mm__resolve_all(mm_config *cfg, const mm__catalog *c) {
    mm_buf left = {0};
    mm_json j;
    mm_json_init(&j, &left, 0);
    mm_json_begin_array(&j);
    int more = 0;
    cfg->counters.ncounter_pvars = 0;
    for (int i = 0; i < c->n; i++) {
        const char *why = c->ok[i] ? NULL : c->why[i];
        if (!why && mm__index_of(c, c->d[i].name) != i) why = "another variable of this name comes first";
        if (!why && cfg->counters.ncounter_pvars >= MM_MAX_COUNTERS) why = "more readable variables than mpimeter reads at once (64)";
        if (!why) {
            snprintf(cfg->counters.counter_pvars[cfg->counters.ncounter_pvars++], MM_COUNTER_NAME_LEN, "%s", c->d[i].name);
            continue;
        }
        if (left.len + strlen(c->d[i].name) + strlen(why) + 64 >= sizeof cfg->counters.counters_left_out - 64) {
            more++;
            continue;
        }
        mm_json_begin_object(&j);
        mm_json_kv_string(&j, "name", c->d[i].name);
        mm_json_kv_string(&j, "why", why);
        mm_json_end_object(&j);
    }
    if (more) {
        char text[96];
        snprintf(text, sizeof text, "%d more variables were left out and are not listed", more);
        mm_json_begin_object(&j);
        mm_json_key(&j, "name");
        mm_json_null(&j);
        mm_json_kv_string(&j, "why", text);
        mm_json_end_object(&j);
    }
    mm_json_end_array(&j);
    snprintf(cfg->counters.counters_left_out, sizeof cfg->counters.counters_left_out, "%s", left.data ? left.data : "[]");
    mm_buf_free(&left);
}

/* Named variables: each must be in the catalog and pass its trial. */
static mm_status mm__resolve_names(mm_config *cfg, const mm__catalog *c, const char *library, char *err,
                             size_t len) {
    cfg->counters.ncounter_pvars = 0;
    snprintf(cfg->counters.counters_left_out, sizeof cfg->counters.counters_left_out, "[]");
    char text[MM_COUNTERS_TEXT];
    snprintf(text, sizeof text, "%s", cfg->counters.mpit_pvars);
    for (char *name = text, *next; name; name = next) {
        char *comma = strchr(name, ',');
        next = comma ? comma + 1 : NULL;
        if (comma) *comma = '\0';
        int i = mm__index_of(c, name);
        if (i < 0) {
            char offered[640];
            mm__offered(c, offered, sizeof offered);
            if (c->n == 0)
                snprintf(err, len, "--mpit-pvars: unknown performance variable '%s'; the MPI library "
                         "(%s) offers none here", name, library);
            else if (!offered[0])
                snprintf(err, len, "--mpit-pvars: unknown performance variable '%s'; none of the "
                         "library's %d can be read here (mpimeter-bench --list-pvars says why)",
                         name, c->n);
            else
                snprintf(err, len, "--mpit-pvars: unknown performance variable '%s'; allowed (readable "
                         "here): %s (mpimeter-bench --list-pvars lists them all)", name, offered);
            return MM_E_INPUT;
        }
        if (!c->ok[i]) {
            snprintf(err, len, "--mpit-pvars: '%s' cannot be read here: %s (mpimeter-bench "
                     "--list-pvars says which can)", name, c->why[i]);
            return MM_E_INPUT;
        }
        snprintf(cfg->counters.counter_pvars[cfg->counters.ncounter_pvars++], MM_COUNTER_NAME_LEN, "%.*s",
                 MM_COUNTER_NAME_LEN - 1, name); /* names were checked to fit */
    }
    return 0;
}

mm_status mm_pvar_resolve(mm_config *cfg, MPI_Comm comm, char *err, size_t len) {
    char library[256];
    mm__library_line(library, sizeof library);
    int all = strcmp(cfg->counters.mpit_pvars, "all") == 0;
    if (mm_pvar_init() != 0) {
        if (all) { /* recorded as none: the launch's conditions say so */
            cfg->counters.ncounter_pvars = 0;
            snprintf(cfg->counters.counters_left_out, sizeof cfg->counters.counters_left_out, "[]");
            return 0;
        }
        snprintf(err, len, "--mpit-pvars: the MPI library (%s) offers no MPI_T interface, so no "
                 "performance variable can be read", library);
        return MM_E_INPUT;
    }
    mm__catalog c;
    int rc = 0;
    if (mm__catalog_read(&c, comm, 1) != 0) {
        snprintf(err, len, "--mpit-pvars: out of memory reading the library's performance variables");
        rc = MM_E_INPUT;
    } else {
        if (all)
            mm__resolve_all(cfg, &c);
        else
            rc = mm__resolve_names(cfg, &c, library, err, len);
        mm__catalog_free(&c);
    }
    mm_pvar_finalize();
    return rc;
}
