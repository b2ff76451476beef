/* mm_output.h — the launch folder (docs/FORMAT.md): raw.csv, sync.csv, meta.json, and the
 * provenance that meta.json carries. Only rank 0 writes files. */
#ifndef MM_OUTPUT_H
#define MM_OUTPUT_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mm_bench.h"
#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_json.h"
#include "mm_procsync.h"
#include "mm_timer.h"

#define MM_SCHEMA_VERSION 1
#define MM_TOOL_VERSION "0.1.0"

typedef struct mm_rank_info {
    char host[256];
    int pid;
    char cpus[256]; /* affinity as a list "0-1,3" */
} mm_rank_info;

typedef struct mm_provenance {
    char mpi_library[32];      /* openmpi | mpich | unknown */
    char mpi_version[32];      /* "MPI 3.1" */
    char *library_version_full;/* all lines of MPI_Get_library_version (malloc'd) */
    char compiler[128], flags[512], mpicc[128], git_revision[64];
    char kernel[256], cpu_model[256], tsc_flags[128], governor[64];
    int ncpus;
    mm_rank_info *ranks; /* nprocs entries, rank 0 only */
    mm_buf environment_json; /* rendered object, secrets redacted */
    double loadavg_start[3], loadavg_end[3];
    /* /proc/stat busy jiffies and own CPU time at start, for "other processes' CPU time" */
    double busy_cpu_s_start, own_cpu_s_start;
    double other_cpu_s, own_cpu_s, wall_s;
    double mono_start_s; /* CLOCK_MONOTONIC at collect, for wall_s */
    char wall_start[40], wall_end[40]; /* ISO-8601 UTC; wall_end empty until finish */
    int pid;
} mm_provenance;

/* Collective: collects everything (rank 0 gathers host/pid/affinity from every rank). */
void mm_provenance_collect(mm_provenance *p, MPI_Comm comm);
/* Rank 0: records load and wall time at the end. own CPU = sum over ranks (collective). */
void mm_provenance_finish(mm_provenance *p, MPI_Comm comm);
void mm_provenance_free(mm_provenance *p);
/* Is an environment variable name secret-looking (TOKEN, SECRET, PASSWORD, PASSWD, KEY,
 * CREDENTIAL, case-insensitive)? Is it MPI-related (OMPI_, MPICH_, PMI, UCX_, SLURM_, …)? */
int mm_env_name_is_secret(const char *name);
int mm_env_name_is_mpi_related(const char *name);
/* Renders the MPI-related variables of envp as a JSON object, secrets redacted. */
void mm_environment_json(mm_buf *out, char **envp);

/* What meta.json describes; assembled by main, serialized by mm_meta_render. */
typedef struct mm_launch {
    const mm_config *cfg;
    int nprocs;
    const char *status; /* running | complete | incomplete | failed */
    const mm_timer *timer;
    const mm_clocksync *cs; /* NULL for none? no: always present, method "none" */
    const mm_procsync *ps;
    const mm_provenance *prov;
    const mm_test *tests;
    int ntests;
    int64_t epoch_local_ns_rank0;
    /* clock-sync quality (rank 0) */
    int nresidual_start, nresidual_end; /* -1 when not measured */
    int *residual_ranks_start, *residual_ranks_end;
    int64_t *residual_start_ns, *residual_end_ns;
    const char *sync_warning;
    /* per-rank models and parents gathered to rank 0 */
    const mm_clock_model *models; /* nprocs */
    const int *parents;           /* nprocs */
    /* virtual timer truth, per rank (NULL unless virtual) */
    const int64_t *virtual_offsets_ns;
    const double *virtual_skews_ppm;
    const char *const *warnings;
    int nwarnings;
} mm_launch;

/* Renders meta.json into out (replacing what out held): pretty-printed, schema_version first,
 * NULL pointers in l rendered as null. */
void mm_meta_render(const mm_launch *l, mm_buf *out);

/* The launch folder. */
typedef struct mm_outdir {
    char path[MM_PATH_LEN];
    FILE *raw, *sync;
} mm_outdir;

/* Rank 0 only, before anything is measured: checks --out (exists and not empty without
 * --force; not creatable/writable) without creating it: 0, or 2 with a message. */
int mm_outdir_check(const char *path, int force, char *err, size_t err_len);
/* Creates the folder (and parents) and opens raw.csv/sync.csv with their headers; in a used
 * folder (--force) raw.csv, sync.csv and meta.json are truncated. 0, or -1 with a message. */
int mm_outdir_open(mm_outdir *o, const char *path, char *err, size_t err_len);
void mm_outdir_close(mm_outdir *o);
/* Writes text to <dir>/meta.json atomically (temporary file, fsync, rename, fsync of the
 * folder). 0, or -1 with errno set (the temporary file is removed). */
int mm_outdir_write_meta(mm_outdir *o, const mm_buf *meta);

/* Appends the rows of one test and flushes + fsyncs. start/end/gstart/gend/invalid are
 * [rank * nrep + rep] arrays gathered on rank 0 (raw times; the one launch epoch, rank 0's
 * local time at start, is subtracted here from local and global times alike).
 * has_global = 0 leaves gstart/gend empty (they may be NULL). reduced = 1 writes one row per
 * repetition. 0, or -1 (errno EINVAL for bad arguments, which writes nothing). */
int mm_raw_write_test(FILE *f, const mm_test *t, int nprocs, long nrep, const int64_t *start,
                      const int64_t *end, const int64_t *gstart, const int64_t *gend,
                      const int32_t *invalid, int64_t epoch_ns, int has_global, int reduced);
/* Appends sync records (local_ns minus the launch epoch), flushes + fsyncs. 0, or -1 (EINVAL
 * for an unknown kind: nothing is written). */
int mm_sync_write(FILE *f, const mm_sync_record *rec, size_t n, int64_t epoch_ns);

#endif
