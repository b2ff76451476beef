/* SPDX-License-Identifier: BSD-3-Clause */
/* counters_internal.h — what the counters' context (counters.c) and its sources share: one
 * source per file behind a small vtable (src_mpit.c: MPI_T performance variables; src_papi.c:
 * hardware counters through PAPI; src_likwid.c: hardware counters in a LIKWID marker region),
 * and the performance-variable catalog (pvar.c, pvar_list.c).
 * Internal to c/src/counters/. */
#ifndef MM_COUNTERS_INTERNAL_H
#define MM_COUNTERS_INTERNAL_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mm_config.h"
#include "mm_counters.h"
#include "mm_timer.h"

/* One reading of one counter: integers (the bit pattern of an unsigned sum, so that after −
 * before wraps correctly) or doubles, as the counter's datatype says. */
typedef union mm_counter_value {
    int64_t i;
    double d;
} mm_counter_value;

/* What meta.json says of one counter (docs/FORMAT.md, "counters"). */
typedef struct mm_counter_info {
    char name[MM_COUNTER_NAME_LEN];
    const char *source;     /* its source's name (mm_counter_sources): "mpi_t" | "papi" | "likwid" */
    char klass[16];         /* the pvar class (counter, size, level, ...), or "hardware" */
    char datatype[24];      /* "unsigned long long", ... */
    char binding[16];       /* "none" | "communicator" */
    int elements;           /* values one read returns (per-peer arrays): summed into one */
    int continuous;         /* counts without MPI_T_pvar_start (PAPI, LIKWID: 1) */
    int is_double;
    char description[256];
} mm_counter_info;

/* Which of a repetition's two readings: "before" (before the process sync's wait) or "after"
 * (right after the call's second timestamp). The context calls them strictly alternating,
 * before first; LIKWID starts its marker region at the one and stops it at the other. */
typedef enum mm_counter_phase { MM_COUNTER_BEFORE, MM_COUNTER_AFTER } mm_counter_phase;

/* A source whose open cannot succeed with a name (a build without PAPI, LIKWID or MPI_T) needs
 * only `open`: the context calls the others only for a source with counters, close only with a
 * state. */
typedef struct mm_counter_source {
    const char *name;
    /* This rank's state for the source's names in cfg: fills info[0 .. *n - 1] (at most max).
     * MM_OK, or an error status with a message. */
    mm_status (*open)(void **state, const mm_config *cfg, MPI_Comm comm, mm_counter_info *info, int *n,
                int max, char *err, size_t len);
    /* Per test: handles / event set created and started (info[].elements set: known once a
     * handle exists). MM_OK, or an error status with a message. */
    mm_status (*begin_test)(void *state, mm_counter_info *info, char *err, size_t len);
    /* One reading of every counter of the source, in the order of its info. */
    void (*read)(void *state, mm_counter_phase phase, mm_counter_value *out);
    void (*end_test)(void *state);
    void (*close)(void *state);
} mm_counter_source;

extern const mm_counter_source mm_counters_source_mpit;
extern const mm_counter_source mm_counters_source_papi;
extern const mm_counter_source mm_counters_source_likwid;

/* The table of sources (counters.c), in the order a launch reads them: the launch opens each,
 * and --describe lists their names (mm_counter_source_name). */
enum { MM_COUNTER_NSOURCES = 3 };
extern const mm_counter_source *const mm_counter_sources[];

/* The launch's context (counters.c; its rows and meta.json in counters_write.c). */
typedef struct mm__part {
    const mm_counter_source *src;
    void *state;
    int first, n;
} mm__part;

struct mm_counters {
    const mm_config *cfg;
    MPI_Comm comm;
    int rank, nprocs;
    const mm_timer *timer;
    long cap;
    int n;
    mm_counter_info info[MM_MAX_COUNTERS];
    mm__part part[MM_COUNTER_NSOURCES];
    int nparts;
    mm_counter_value before[MM_MAX_COUNTERS], after[MM_MAX_COUNTERS];
    double *deltas;          /* [slot * n + k] */
    double read_ns;          /* this test: median time of one before + after pair, this rank */
    double *read_ns_by_test; /* rank 0: max over ranks; < 0 unknown */
    int ntests_max;
    double *recv;            /* rank 0: one chunk of another rank's deltas */
    size_t chunk;            /* deltas per message */
    FILE *csv;               /* rank 0 */
};

/* ---- one performance variable (pvar.c) ---- */

enum { MM_PVAR_MAX_ELEMENTS = 1 << 16 };

typedef struct mm_pvar_desc {
    int index;
    char name[MM_COUNTER_NAME_LEN];
    char description[256];
    int klass, bind, continuous, readonly;
    MPI_Datatype dt;
} mm_pvar_desc;

/* MPI_T_init_thread; MM_OK or MM_E_FAILED (the library has no MPI_T). */
mm_status mm_pvar_init(void);
void mm_pvar_finalize(void);
/* Number of pvar indices (0 when none). */
int mm_pvar_count(void);
/* The variable at index: MM_OK, or MM_E_FAILED when the index is not valid (a variable of a component the
 * library closed). */
mm_status mm_pvar_describe(int index, mm_pvar_desc *d);
/* The first variable of that name: MM_OK, or MM_E_FAILED. */
mm_status mm_pvar_find(const char *name, mm_pvar_desc *d);
const char *mm_pvar_class_word(int klass);
const char *mm_pvar_bind_word(int bind);
/* A numeric type mpimeter reads: 1 with its width, kind and name; 0 otherwise. */
int mm_pvar_type(MPI_Datatype dt, size_t *width, int *is_double, const char **word);
/* Why the variable cannot be read in mpimeter's binding (a type that is no number, an object
 * other than a communicator): 1 with the reason, else 0. */
int mm_pvar_why_not(const mm_pvar_desc *d, char *why, size_t len);
/* The sum of count elements of type dt at buf. */
mm_counter_value mm_pvar_sum(const void *buf, int count, MPI_Datatype dt);
/* A trial read of each variable in a probe process (a child of this one: a variable whose handle
 * crashes the library — Open MPI 4.1's mtl_psm2_* when PSM2 is not in use — ends the child, not
 * the launch): ok[i] = 1 with elements[i] (values one read returns), or 0 with why[i]. Local. */
void mm_pvar_probe(const mm_pvar_desc *d, int n, MPI_Comm comm, int *ok, int *elements,
                   char (*why)[MM_PVAR_WHY_LEN]);
/* A short text of an MPI_T error code ("MPI_T_ERR_INVALID_HANDLE" or "error 12"). */
const char *mm_pvar_error_word(int rc, char *buf, size_t len);

/* ---- the catalog (pvar_list.c) ---- */

/* Rank 0: cfg->counters.mpit_pvars into cfg->counters.counter_pvars (and counters_left_out for `all`). 0, or 2 with
 * a message. */
mm_status mm_pvar_resolve(mm_config *cfg, MPI_Comm comm, char *err, size_t len);

#endif
