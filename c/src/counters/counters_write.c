/* SPDX-License-Identifier: BSD-3-Clause */
/* counters_write.c — the counters' rows and facts in the launch folder: counters.csv (rank 0
 * gathers every rank's deltas after each test, a chunk at a time) and meta.json's "counters"
 * (docs/FORMAT.md).
 *
 * What: one row per rank, repetition and counter, `test,rank,rep,metric,value`, in the order
 *   rank, repetition, counter (the order of meta.json counters.metrics); with --raw reduced one
 *   row per repetition and counter, rank -1, the sum over ranks. Appended after the test's rows
 *   of raw.csv, flushed before meta.json is rewritten (as raw.csv: a launch killed midway has
 *   whole rows for every test meta.json lists as finished), fsync'd once before the final one.
 * Why: the same rows as raw.csv, so that a reader can put every counter next to the run time of
 *   its repetition.
 * Cost: per test nrep × counters values per rank to rank 0, in messages of at most 2^20 values
 *   (8 MiB): rank 0 holds one chunk besides its own deltas. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counters_internal.h"
#include "mm_error.h"

enum { MM__TAG = 7301 };

mm_status mm_counters_open_csv(mm_counters *c, const char *dir, char *err, size_t len) {
    char path[MM_PATH_LEN + 32];
    snprintf(path, sizeof path, "%s/%s", dir, MM_COUNTERS_FILE);
    if (!c) {
        if (unlink(path) != 0 && errno != ENOENT) {
            snprintf(err, len, "cannot remove %s left by an earlier launch (%s)", path, strerror(errno));
            return MM_E_FAILED;
        }
        return 0;
    }
    if (c->rank != 0) return 0;
    c->csv = fopen(path, "w");
    if (!c->csv || fputs(MM_COUNTERS_HEADER, c->csv) == EOF || fflush(c->csv) != 0) {
        snprintf(err, len, "cannot write %s (%s)", path, strerror(errno));
        return MM_E_FAILED;
    }
    return 0;
}

/* Rows of one rank: values [first, first + count) of its [rep * n + k] array. */
static mm_status mm__write_rows(mm_counters *c, const mm_test *t, int rank, size_t first, size_t count,
                          const double *v) {
    for (size_t i = 0; i < count; i++) {
        size_t at = first + i;
        long rep = (long)(at / (size_t)c->n);
        int k = (int)(at % (size_t)c->n);
        double x = v[i];
        int w;
        if (!isfinite(x)) /* a double counter that read NaN: no value */
            w = fprintf(c->csv, "%d,%d,%ld,%s,\n", t->index, rank, rep, c->info[k].name);
        else if (!c->info[k].is_double && fabs(x) < 9.2e18)
            w = fprintf(c->csv, "%d,%d,%ld,%s,%lld\n", t->index, rank, rep, c->info[k].name,
                        (long long)x);
        else
            w = fprintf(c->csv, "%d,%d,%ld,%s,%.17g\n", t->index, rank, rep, c->info[k].name, x);
        if (w < 0) return MM_E_FAILED;
    }
    return 0;
}

mm_status mm_counters_write_test(mm_counters *c, const mm_test *t, long nrep, int reduced,
                           mm_mpi_error *err) {
    if (!c) return 0;
    double cost = 0.0;
    MM_MPI(err, MPI_Reduce(&c->read_ns, &cost, 1, MPI_DOUBLE, MPI_MAX, 0, c->comm));
    if (c->rank == 0 && t->index >= 0 && t->index < c->ntests_max) c->read_ns_by_test[t->index] = cost;
    if (c->n == 0 || nrep <= 0) return 0; /* the same on every rank: names and nrep are */
    size_t total = (size_t)nrep * (size_t)c->n;
    int ok = 1;
    if (reduced) {
        for (size_t off = 0; off < total && !mm_mpi_failed(err); off += c->chunk) {
            int count = (int)(total - off < c->chunk ? total - off : c->chunk);
            MM_MPI(err, MPI_Reduce(c->deltas + off, c->recv, count, MPI_DOUBLE, MPI_SUM, 0, c->comm));
            if (c->rank == 0 && ok && !mm_mpi_failed(err))
                ok = mm__write_rows(c, t, -1, off, (size_t)count, c->recv) == 0;
        }
    } else if (c->rank == 0) {
        ok = mm__write_rows(c, t, 0, 0, total, c->deltas) == 0;
        for (int r = 1; r < c->nprocs && !mm_mpi_failed(err); r++) {
            for (size_t off = 0; off < total && !mm_mpi_failed(err); off += c->chunk) {
                int count = (int)(total - off < c->chunk ? total - off : c->chunk);
                MM_MPI(err, MPI_Recv(c->recv, count, MPI_DOUBLE, r, MM__TAG, c->comm, MPI_STATUS_IGNORE));
                if (ok && !mm_mpi_failed(err)) ok = mm__write_rows(c, t, r, off, (size_t)count, c->recv) == 0;
            }
        }
    } else {
        for (size_t off = 0; off < total && !mm_mpi_failed(err); off += c->chunk) {
            int count = (int)(total - off < c->chunk ? total - off : c->chunk);
            MM_MPI(err, MPI_Send(c->deltas + off, count, MPI_DOUBLE, 0, MM__TAG, c->comm));
        }
    }
    if (c->rank == 0 && ok) ok = fflush(c->csv) == 0;
    return ok ? 0 : MM_E_FAILED;
}

mm_status mm_counters_sync(mm_counters *c) {
    if (!c || c->rank != 0 || !c->csv) return MM_OK;
    if (fflush(c->csv) != 0) return MM_E_FAILED;
    if (fsync(fileno(c->csv)) != 0 && errno != EINVAL && errno != EROFS) return MM_E_FAILED;
    return MM_OK; /* EINVAL/EROFS: nothing a fsync can make durable there */
}

static void mm__counters_render_value(mm_json *j, const mm_counters *c) {
    if (!c) {
        mm_json_null(j);
        return;
    }
    const mm_config *cfg = c->cfg;
    mm_json_begin_object(j);
    mm_json_kv_string(j, "file", MM_COUNTERS_FILE);
    mm_json_key(j, "mpit_pvars");
    mm_json_string(j, cfg->counters.mpit_pvars[0] ? cfg->counters.mpit_pvars : NULL);
    mm_json_key(j, "papi");
    mm_json_string(j, cfg->counters.papi_events[0] ? cfg->counters.papi_events : NULL);
    char version[32];
    mm_papi_version(version, sizeof version);
    mm_json_key(j, "papi_version");
    mm_json_string(j, cfg->counters.papi_events[0] && version[0] ? version : NULL);
    mm_json_key(j, "likwid");
    mm_json_string(j, cfg->counters.likwid_group[0] ? cfg->counters.likwid_group : NULL);
    mm_likwid_version(version, sizeof version);
    mm_json_key(j, "likwid_version");
    mm_json_string(j, cfg->counters.likwid_group[0] && version[0] ? version : NULL);
    mm_json_kv_string(j, "reads", "before the process sync's wait and right after the call's "
                                  "second timestamp, outside the timed region");
    mm_json_key(j, "metrics");
    mm_json_begin_array(j);
    for (int k = 0; k < c->n; k++) {
        const mm_counter_info *in = &c->info[k];
        mm_json_begin_object(j);
        mm_json_kv_string(j, "name", in->name);
        mm_json_kv_string(j, "source", in->source);
        mm_json_kv_string(j, "class", in->klass);
        mm_json_kv_string(j, "datatype", in->datatype);
        mm_json_kv_string(j, "binding", in->binding);
        mm_json_key(j, "elements");
        if (in->elements > 0)
            mm_json_int(j, in->elements);
        else
            mm_json_null(j); /* known once a test has made its handle */
        mm_json_kv_bool(j, "continuous", in->continuous);
        mm_json_kv_string(j, "value", in->is_double ? "double" : "integer");
        mm_json_kv_string(j, "description", in->description);
        mm_json_end_object(j);
    }
    mm_json_end_array(j);
    mm_json_key(j, "left_out");
    mm_json_raw(j, cfg->counters.counters_left_out[0] ? cfg->counters.counters_left_out : "[]");
    mm_json_key(j, "read_ns_by_test");
    mm_json_begin_object(j);
    for (int i = 0; c->read_ns_by_test && i < c->ntests_max; i++) {
        if (c->read_ns_by_test[i] < 0) continue;
        char key[16];
        snprintf(key, sizeof key, "%d", i);
        mm_json_kv_double(j, key, c->read_ns_by_test[i]);
    }
    mm_json_end_object(j);
    mm_json_end_object(j);
}

void mm_counters_render_meta(mm_json *j, const mm_counters *c) {
    mm_json_key(j, "counters");
    mm__counters_render_value(j, c);
}

void mm_counters_meta_json(const mm_counters *c, mm_buf *out) {
    out->len = 0;
    if (out->data) out->data[0] = '\0';
    if (!c) return;
    mm_json j;
    mm_json_init_value(&j, out, 1, 1); /* the value of a top-level key of meta.json */
    mm__counters_render_value(&j, c);
}
