/* SPDX-License-Identifier: BSD-3-Clause */
/* counters.c — per-repetition counters of a launch (docs/FORMAT.md, "counters.csv"): the
 * options' syntax, their resolution after MPI_Init, the launch's context with the two hooks of
 * the measurement loop, and meta.json's "counters".
 *
 * What: the counters of every source (src_mpit.c, src_papi.c, src_likwid.c) are read before
 *   the process sync's wait and right after the second timestamp of the call — outside the timed
 *   region — and after − before is kept per repetition (a double; integer deltas are exact below
 *   2^53). LIKWID's marker region starts at the first reading and stops at the second.
 *   Per test the sources create their handles once, and the cost of one before + after pair is
 *   timed (21 pairs, median): what looking adds to every repetition (meta.json
 *   counters.read_ns_by_test). Rows go to counters.csv in counters_write.c.
 * Why: Roth 2021 §4.2–4.3, §4.6: counters recorded per iteration and rank, correlated with run
 *   time and the categories of §4.5, tell why a repetition was slow. Reading before the wait
 *   keeps the planned start of window-based schemes free of the reads; what the interval then
 *   holds besides the call is the process sync's own traffic (FORMAT.md says which).
 * Cost per repetition: the reads (tens of ns per variable) and one subtraction per counter. */
#include <stdlib.h>
#include <string.h>

#include "counters_internal.h"
#include "mm_error.h"

enum { MM__COST_PAIRS = 21 };

/* ---- the sources ---- */

const mm_counter_source *const mm_counter_sources[] = {&mm_counters_source_mpit, &mm_counters_source_papi,
                                                       &mm_counters_source_likwid};
_Static_assert(sizeof mm_counter_sources / sizeof mm_counter_sources[0] == MM_COUNTER_NSOURCES,
               "MM_COUNTER_NSOURCES counts the table's sources");

const char *mm_counter_source_name(size_t i) {
    return i < MM_COUNTER_NSOURCES ? mm_counter_sources[i]->name : NULL;
}

/* ---- the options' syntax ---- */

mm_status mm_counters_check_names(const char *option, const char *text, int allow_all, char *err,
                            size_t len) {
    const char *allowed = allow_all ? "names of performance variables, comma-separated, or all"
                                    : "event names, comma-separated";
    if (!*text) {
        snprintf(err, len, "--%s: empty; allowed: %s", option, allowed);
        return MM_E_INPUT;
    }
    if (strlen(text) >= MM_COUNTERS_TEXT) {
        snprintf(err, len, "--%s: longer than %d characters", option, MM_COUNTERS_TEXT - 1);
        return MM_E_INPUT;
    }
    if (strcmp(text, "all") == 0) {
        if (allow_all) return 0;
        snprintf(err, len, "--%s: 'all' is not allowed here; allowed: %s", option, allowed);
        return MM_E_INPUT;
    }
    char seen[MM_MAX_COUNTERS][MM_COUNTER_NAME_LEN];
    int n = 0;
    for (const char *p = text;;) {
        size_t item = strcspn(p, ",");
        if (item == 0) {
            snprintf(err, len, "--%s: empty item in '%s'; allowed: %s", option, text, allowed);
            return MM_E_INPUT;
        }
        if (item >= MM_COUNTER_NAME_LEN) {
            snprintf(err, len, "--%s: '%.*s...' is longer than %d characters", option, 40, p,
                     MM_COUNTER_NAME_LEN - 1);
            return MM_E_INPUT;
        }
        for (size_t i = 0; i < item; i++) {
            unsigned char ch = (unsigned char)p[i];
            if (ch <= ' ' || ch >= 127 || ch == '"' || ch == '\\' || ch == '\'') {
                snprintf(err, len, "--%s: '%.*s' is not a counter name (no spaces, quotes, "
                         "backslashes or non-ASCII characters); allowed: %s", option, (int)item, p,
                         allowed);
                return MM_E_INPUT;
            }
        }
        if (item == 3 && strncmp(p, "all", 3) == 0 && allow_all) {
            snprintf(err, len, "--%s: 'all' stands alone, not in a list ('%s')", option, text);
            return MM_E_INPUT;
        }
        if (n >= MM_MAX_COUNTERS) {
            snprintf(err, len, "--%s: more than %d names", option, MM_MAX_COUNTERS);
            return MM_E_INPUT;
        }
        snprintf(seen[n], MM_COUNTER_NAME_LEN, "%.*s", (int)item, p);
        for (int j = 0; j < n; j++) {
            if (strcmp(seen[j], seen[n]) == 0) {
                snprintf(err, len, "--%s: '%s' is given twice", option, seen[n]);
                return MM_E_INPUT;
            }
        }
        n++;
        if (!p[item]) break;
        p += item + 1;
    }
    return 0;
}

/* ---- after MPI_Init: resolution and every rank's own check ---- */

/* Any source asked for: --mpit-pvars, --papi or --likwid. */
static int mm__counters_asked(const mm_config *cfg) {
    return cfg->counters.mpit_pvars[0] || cfg->counters.papi_events[0] || cfg->counters.likwid_group[0];
}

/* An MPI failure while checking: the message in err, MM_E_FAILED (exit 1, not bad input). */
static mm_status mm__mpi_failed(const mm_mpi_error *e, char *err, size_t len) {
    char what[512];
    mm_mpi_error_format(e, what, sizeof what);
    snprintf(err, len, "MPI failed while checking the counters: %s", what);
    return MM_E_FAILED;
}

/* Collective: 0 when every rank's rc is 0; else rank 0 gets the message of the lowest failing
 * rank (prefixed with the rank when it is not 0) and every rank returns 2. */
static mm_status mm__agree(int rc, MPI_Comm comm, int rank, int nprocs, char *err, size_t len) {
    int mine = rc ? rank : nprocs, lowest = nprocs;
    mm_mpi_error e;
    mm_mpi_error_clear(&e);
    if (MM_MPI(&e, MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, comm)) != MPI_SUCCESS)
        return mm__mpi_failed(&e, err, len);
    if (lowest == nprocs) return 0;
    if (lowest != 0) {
        char msg[1024] = "";
        if (rank == lowest) snprintf(msg, sizeof msg, "%s", err);
        if (MM_MPI(&e, MPI_Bcast(msg, (int)sizeof msg, MPI_CHAR, lowest, comm)) != MPI_SUCCESS)
            return mm__mpi_failed(&e, err, len);
        if (rank == 0) snprintf(err, len, "rank %d: %s", lowest, msg);
    }
    return MM_E_INPUT;
}

mm_status mm_counters_resolve(mm_config *cfg, MPI_Comm comm, char *err, size_t len) {
    if (cfg->run.mode != MM_MODE_BENCH || !mm__counters_asked(cfg)) return 0;
    int rank = 0, nprocs = 1;
    mm_mpi_error e;
    mm_mpi_error_clear(&e);
    MM_MPI(&e, MPI_Comm_rank(comm, &rank));
    MM_MPI(&e, MPI_Comm_size(comm, &nprocs));
    if (mm_mpi_failed(&e)) return mm__mpi_failed(&e, err, len);
    int rc = 0;
    if (rank == 0 && cfg->counters.mpit_pvars[0]) rc = mm_pvar_resolve(cfg, comm, err, len);
    if (MM_MPI(&e, MPI_Bcast(&rc, 1, MPI_INT, 0, comm)) != MPI_SUCCESS)
        return mm__mpi_failed(&e, err, len);
    if (rc) return MM_E_INPUT;
    MM_MPI(&e, MPI_Bcast(&cfg->counters.ncounter_pvars, 1, MPI_INT, 0, comm));
    MM_MPI(&e, MPI_Bcast(cfg->counters.counter_pvars, (int)sizeof cfg->counters.counter_pvars, MPI_CHAR, 0, comm));
    if (mm_mpi_failed(&e)) return mm__mpi_failed(&e, err, len);
    /* every rank: its own process offers these variables, its own host these events */
    char mine[1024] = "";
    int bad = 0;
    if (cfg->counters.ncounter_pvars > 0) {
        if (mm_pvar_init() != 0) {
            snprintf(mine, sizeof mine, "--mpit-pvars: MPI_T cannot be initialized");
            bad = 1;
        } else {
            for (int k = 0; k < cfg->counters.ncounter_pvars && !bad; k++) {
                mm_pvar_desc d;
                if (mm_pvar_find(cfg->counters.counter_pvars[k], &d) != 0) {
                    snprintf(mine, sizeof mine, "--mpit-pvars: performance variable '%s' does "
                             "not exist on this rank", cfg->counters.counter_pvars[k]);
                    bad = 1;
                }
            }
            mm_pvar_finalize();
        }
    }
    if (!bad && cfg->counters.papi_events[0]) bad = mm_papi_check(cfg->counters.papi_events, mine, sizeof mine) != 0;
    /* LIKWID: this rank runs under likwid-perfctr -m with that group, and its marker API started */
    if (!bad && cfg->counters.likwid_group[0])
        bad = mm_likwid_check(cfg->counters.likwid_group, mine, sizeof mine) != 0;
    int npapi = 0;
    for (const char *p = cfg->counters.papi_events; *p; p++) npapi += *p == ',';
    npapi += cfg->counters.papi_events[0] != '\0';
    if (!bad && cfg->counters.ncounter_pvars + npapi > MM_MAX_COUNTERS) {
        snprintf(mine, sizeof mine, "--mpit-pvars and --papi: %d counters; at most %d are read",
                 cfg->counters.ncounter_pvars + npapi, MM_MAX_COUNTERS);
        bad = 1;
    }
    if (bad) snprintf(err, len, "%s", mine);
    return mm__agree(bad, comm, rank, nprocs, err, len);
}

/* ---- the launch's context ---- */

int mm_counters_metrics(const mm_counters *c) { return c ? c->n : 0; }

/* Every source's reading; after the call in the reverse order, so that the source read last
 * before it (LIKWID, whose region starts and stops at its readings) is read first after it. */
static void mm__read_all(mm_counters *c, mm_counter_phase phase, mm_counter_value *out) {
    for (int i = 0; i < c->nparts; i++) {
        const mm__part *p = &c->part[phase == MM_COUNTER_BEFORE ? i : c->nparts - 1 - i];
        if (p->n) p->src->read(p->state, phase, out + p->first);
    }
}

mm_counters *mm_counters_open(const mm_config *cfg, MPI_Comm comm, const mm_timer *timer,
                              long cap, char *err, size_t len) {
    err[0] = '\0';
    if (!mm__counters_asked(cfg)) return NULL;
    mm_counters *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, len, "out of memory for the counters");
        return NULL;
    }
    c->cfg = cfg;
    c->comm = comm;
    c->timer = timer;
    c->cap = cap;
    mm_mpi_error e;
    mm_mpi_error_clear(&e);
    MM_MPI(&e, MPI_Comm_rank(comm, &c->rank));
    MM_MPI(&e, MPI_Comm_size(comm, &c->nprocs));
    if (mm_mpi_failed(&e)) {
        mm__mpi_failed(&e, err, len);
        free(c);
        return NULL;
    }
    for (size_t s = 0; s < MM_COUNTER_NSOURCES; s++) {
        mm__part *p = &c->part[c->nparts++];
        p->src = mm_counter_sources[s];
        p->first = c->n;
        if (p->src->open(&p->state, cfg, comm, c->info + c->n, &p->n, MM_MAX_COUNTERS - c->n, err,
                         len) != 0) {
            mm_counters_close(c);
            return NULL;
        }
        c->n += p->n;
    }
    c->ntests_max = MM_MAX_OPS * MM_MAX_SIZES;
    c->deltas = calloc((size_t)(cap > 0 ? cap : 1) * (size_t)(c->n > 0 ? c->n : 1), sizeof(double));
    c->read_ns_by_test = c->rank == 0 ? malloc((size_t)c->ntests_max * sizeof(double)) : NULL;
    /* rank 0 receives the other ranks' deltas a chunk at a time (allocated now, so that the
     * exchange after each test cannot fail halfway) */
    size_t total = (size_t)(cap > 0 ? cap : 1) * (size_t)(c->n > 0 ? c->n : 1);
    c->chunk = total < ((size_t)1 << 20) ? total : ((size_t)1 << 20);
    c->recv = c->rank == 0 ? malloc(c->chunk * sizeof(double)) : NULL;
    if (!c->deltas || (c->rank == 0 && (!c->read_ns_by_test || !c->recv))) {
        snprintf(err, len, "out of memory for the counters of %ld repetitions", cap);
        mm_counters_close(c);
        return NULL;
    }
    for (int i = 0; c->read_ns_by_test && i < c->ntests_max; i++) c->read_ns_by_test[i] = -1.0;
    return c;
}

void mm_counters_close(mm_counters *c) {
    if (!c) return;
    for (int p = 0; p < c->nparts; p++)
        if (c->part[p].state) c->part[p].src->close(c->part[p].state);
    if (c->csv) {
        fflush(c->csv);
        fclose(c->csv);
    }
    free(c->deltas);
    free(c->recv);
    free(c->read_ns_by_test);
    free(c);
}

mm_status mm_counters_begin_test(mm_counters *c, char *err, size_t len) {
    if (!c) return 0;
    for (int p = 0; p < c->nparts; p++) {
        mm__part *part = &c->part[p];
        if (part->n && part->src->begin_test(part->state, c->info + part->first, err, len) != 0) {
            for (int q = 0; q < p; q++)
                if (c->part[q].n) c->part[q].src->end_test(c->part[q].state);
            return MM_E_FAILED;
        }
    }
    /* what looking costs a repetition: a before and an after reading, back to back */
    int64_t pair_ns[MM__COST_PAIRS];
    for (int i = 0; i < MM__COST_PAIRS; i++) {
        int64_t t0 = mm_timer_now(c->timer);
        mm__read_all(c, MM_COUNTER_BEFORE, c->before);
        mm__read_all(c, MM_COUNTER_AFTER, c->after);
        pair_ns[i] = mm_timer_now(c->timer) - t0;
    }
    qsort(pair_ns, MM__COST_PAIRS, sizeof pair_ns[0], mm_cmp_i64);
    c->read_ns = (double)pair_ns[MM__COST_PAIRS / 2];
    return 0;
}

void mm_counters_end_test(mm_counters *c) {
    if (!c) return;
    for (int p = 0; p < c->nparts; p++)
        if (c->part[p].n) c->part[p].src->end_test(c->part[p].state);
}

void mm_counters_before(mm_counters *c) {
    if (c) mm__read_all(c, MM_COUNTER_BEFORE, c->before);
}

void mm_counters_after(mm_counters *c, long slot) {
    if (!c) return;
    mm__read_all(c, MM_COUNTER_AFTER, c->after);
    double *row = c->deltas + (size_t)slot * (size_t)c->n;
    for (int k = 0; k < c->n; k++) {
        /* integers: the difference modulo 2^64, so a counter that wrapped still counts right */
        row[k] = c->info[k].is_double
                     ? c->after[k].d - c->before[k].d
                     : (double)(int64_t)((uint64_t)c->after[k].i - (uint64_t)c->before[k].i);
    }
}
