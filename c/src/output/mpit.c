/* SPDX-License-Identifier: BSD-3-Clause */
/* mpit.c — the MPI library's control variables (MPI_T cvars), recorded in meta.json's
 * "mpi.mpi_t" (docs/FORMAT.md).
 *
 * What: every control variable not bound to an object is read once on rank 0 after MPI_Init:
 *   their count, a hash (FNV-1a 64) of the sorted "name=value" lines, and the values of those
 *   that select transports and collective algorithms (mm_mpit_is_selection), among them the
 *   collective tuning files a launch was given. Variables that name the job rather than a
 *   setting (contact URIs, session folder) are left out of both.
 * Why: Hunold & Carpen-Amarie 2016 §4.2 and the launch effects seen on this machine
 *   (docs/ALGORITHMS.md, "Launch effects"): when per-launch medians form clusters, the analysis looks for a recorded
 *   property that separates them; what the library was set to is one. The digest makes any
 *   difference visible without storing a thousand values per launch.
 * Cost: one MPI_T session, ~10^3 handle allocations and reads (a few ms), before the tests. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_output.h"

int mm_mpit_is_selection(const char *name) {
    /* Open MPI's framework selections and its tuned-collective decisions (the forced algorithms,
     * the switch to them and the dynamic rules file); MPICH's algorithm, netmod and
     * device-collective choices and its collective-selection JSON files (MPIR and CH4 layers) */
    static const char *const exact[] = {"pml", "btl", "mtl", "coll", "osc", "shmem"};
    static const char *const contains[] = {"_algorithm", "_ALGORITHM", "NETMOD",
                                           "DEVICE_COLLECTIVES", "use_dynamic_rules",
                                           "dynamic_rules_filename", "SELECTION_TUNING_JSON_FILE"};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(name, exact[i]) == 0) return 1;
    for (size_t i = 0; i < sizeof contains / sizeof contains[0]; i++)
        if (strstr(name, contains[i])) return 1;
    return 0;
}

/* SimGrid's SMPI (3.32) has no MPI_T interface: there, the cvars are recorded as unavailable
 * ("available": false), as for a library whose MPI_T_init_thread fails. */
#ifndef MM_SIMGRID
/* Variables whose value names this job rather than a setting (the launcher's contact URIs, the
 * session folder, job ids): seen to differ in every launch of Open MPI 4.1 on one machine with
 * nothing else changed. Left out of the digest, so that it changes only when a setting does. */
static int mm__job_specific(const char *name) {
    static const char *const parts[] = {"_uri", "session_dir", "jobfam", "jobid", "_pid"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (strstr(name, parts[i])) return 1;
    return 0;
}

static int mm__cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One element of a control variable as text, for the datatypes of the MPI_T datatype system
 * (MPI-3.1 §14.3.5: MPI_INT, MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_UNSIGNED_LONG_LONG, MPI_COUNT,
 * MPI_CHAR, MPI_DOUBLE) and the others the libraries use: Open MPI 4.1 reports its booleans as
 * MPI_C_BOOL (written as a C bool by its MPI_T_cvar_read) and MPICH 4.0 only MPI_INT and MPI_CHAR. An integer with an enumeration is recorded as its number (what the variable is
 * set to in the environment: OMPI_MCA_coll_tuned_allreduce_algorithm=3); a boolean as true or
 * false. Returns 0 for a datatype not listed here (recorded as "?"). */
static int mm__format_scalar(MPI_Datatype dt, const void *buf, char *out, size_t len) {
    if (dt == MPI_INT) snprintf(out, len, "%d", *(const int *)buf);
    else if (dt == MPI_UNSIGNED) snprintf(out, len, "%u", *(const unsigned *)buf);
    else if (dt == MPI_LONG) snprintf(out, len, "%ld", *(const long *)buf);
    else if (dt == MPI_UNSIGNED_LONG) snprintf(out, len, "%lu", *(const unsigned long *)buf);
    else if (dt == MPI_LONG_LONG) snprintf(out, len, "%lld", *(const long long *)buf);
    else if (dt == MPI_UNSIGNED_LONG_LONG) snprintf(out, len, "%llu", *(const unsigned long long *)buf);
    else if (dt == MPI_COUNT) snprintf(out, len, "%lld", (long long)*(const MPI_Count *)buf);
    else if (dt == MPI_AINT) snprintf(out, len, "%lld", (long long)*(const MPI_Aint *)buf);
    else if (dt == MPI_OFFSET) snprintf(out, len, "%lld", (long long)*(const MPI_Offset *)buf);
    else if (dt == MPI_C_BOOL) snprintf(out, len, "%s", *(const _Bool *)buf ? "true" : "false");
    else if (dt == MPI_DOUBLE) snprintf(out, len, "%.17g", *(const double *)buf);
    else if (dt == MPI_FLOAT) snprintf(out, len, "%.9g", (double)*(const float *)buf);
    else return 0;
    return 1;
}

/* One variable's value as text ("" when it cannot be read): a string as it is, one element as
 * mm__format_scalar, several elements joined by commas. */
static void mm__read_value(int index, MPI_Datatype dt, char *out, size_t len) {
    out[0] = '\0';
    MPI_T_cvar_handle h;
    int count = 0;
    if (MPI_T_cvar_handle_alloc(index, NULL, &h, &count) != MPI_SUCCESS) return;
    if (count < 1 || count > 4096) {
        MPI_T_cvar_handle_free(&h);
        return;
    }
    /* room for count elements of the widest type, and a terminating zero for strings */
    int size = 0;
    if (dt != MPI_CHAR && (MPI_Type_size(dt, &size) != MPI_SUCCESS || size < 1 || size > 16)) size = 16;
    size_t bytes = (size_t)count * 16 + 1;
    unsigned char *buf = calloc(1, bytes);
    if (buf && MPI_T_cvar_read(h, buf) == MPI_SUCCESS) {
        if (dt == MPI_CHAR) {
            buf[count < (int)bytes ? count : (int)bytes - 1] = '\0';
            snprintf(out, len, "%s", (const char *)buf);
        } else {
            size_t used = 0;
            for (int i = 0; i < count && used + 1 < len; i++) {
                char one[64];
                if (!mm__format_scalar(dt, buf + (size_t)i * (size_t)size, one, sizeof one))
                    snprintf(one, sizeof one, "?");
                int n = snprintf(out + used, len - used, "%s%s", i ? "," : "", one);
                if (n < 0) break;
                used += (size_t)n;
            }
        }
    }
    free(buf);
    MPI_T_cvar_handle_free(&h);
}

#endif

void mm_mpit_collect(mm_mpit_info *info) {
    memset(info, 0, sizeof *info);
#ifdef MM_SIMGRID
    return;
#else
    int provided = 0, num = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    if (MPI_T_cvar_get_num(&num) != MPI_SUCCESS || num < 0) {
        MPI_T_finalize();
        return;
    }
    char **lines = calloc((size_t)num + 1, sizeof *lines);
    int nlines = 0;
    mm_json j;
    mm_json_init(&j, &info->selected, 0);
    mm_json_begin_object(&j);
    for (int i = 0; lines && i < num; i++) {
        char name[256], desc[2], value[1024];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, binding, scope;
        MPI_Datatype dt;
        MPI_T_enum et;
        if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &et, desc, &desc_len,
                                &binding, &scope) != MPI_SUCCESS)
            continue;
        name[sizeof name - 1] = '\0';
        if (mm__job_specific(name)) continue;
        if (binding != MPI_T_BIND_NO_OBJECT)
            snprintf(value, sizeof value, "(bound to an object)");
        else
            mm__read_value(i, dt, value, sizeof value);
        size_t n = strlen(name) + strlen(value) + 2;
        lines[nlines] = malloc(n);
        if (!lines[nlines]) break;
        snprintf(lines[nlines++], n, "%s=%s", name, value);
        if (mm_mpit_is_selection(name)) mm_json_kv_string(&j, name, value);
    }
    mm_json_end_object(&j);
    qsort(lines, (size_t)nlines, sizeof *lines, mm__cmp_str);
    uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a 64 */
    for (int i = 0; i < nlines; i++) {
        for (const char *c = lines[i]; *c; c++) h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
        h = (h ^ '\n') * 0x100000001b3ULL;
        free(lines[i]);
    }
    free(lines);
    info->available = 1;
    info->cvars = nlines;
    snprintf(info->digest, sizeof info->digest, "%016llx", (unsigned long long)h);
    MPI_T_finalize();
#endif
}
