/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_output.h — the launch folder (docs/FORMAT.md): raw.csv, sync.csv, meta.json, and the
 * provenance that meta.json carries. Only rank 0 writes files. */
#ifndef MM_OUTPUT_H
#define MM_OUTPUT_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mm_pairs.h"
#include "mm_test.h"
#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_facts.h"
#include "mm_json.h"
#include "mm_procsync.h"
#include "mm_timer.h"

#define MM_SCHEMA_VERSION 4
#define MM_DESCRIBE_VERSION 1
/* MM_TOOL_VERSION: defined by CMakeLists.txt from the Python package's __version__ (one home) */
#ifndef MM_TOOL_VERSION
#error "MM_TOOL_VERSION is not defined: build with CMake (CMakeLists.txt defines it)"
#endif

typedef struct mm_rank_info {
    char host[256];
    int pid;
    char cpus[256];      /* affinity as a list "0-1,3" */
    char cpus_seen[256]; /* CPUs the rank was seen running on, as a list; "" until the end */
    int cpu_changes;     /* consecutive sched_getcpu() readings that differed */
    double khz_start, khz_end; /* scaling_cur_freq of its CPU; <= 0 when unreadable */
} mm_rank_info;

/* What a rank records of the CPUs it runs on (sampled between tests, outside any test). */
typedef struct mm_cpu_track {
    int last;       /* last CPU seen, -1 before the first reading */
    int changes;
    unsigned char seen[128]; /* bit c: seen on CPU c (CPUs 0..1023) */
} mm_cpu_track;
void mm_cpu_track_note(mm_cpu_track *t);

/* probes.cacheline_rtt_ns: one entry per host with two or more ranks. */
typedef struct mm_cacheline_probe {
    int rank_a, rank_b, cpu_a, cpu_b;
    double rtt_ns; /* median round trip of one cache line between the two; < 0 when it failed */
} mm_cacheline_probe;

/* probes.copy_bandwidth (probe_copy.c): per buffer size, the ranks' best copy rates. */
enum { MM_COPY_MAX_SIZES = 16, MM_COPY_BATCHES = 5, MM_COPY_MIN_BYTES = 4096,
       MM_COPY_BATCH_BYTES = 1 << 20 };
typedef struct mm_copy_rate {
    int64_t bytes;  /* buffer size */
    int copies;     /* copies per timed batch */
    int ranks;      /* ranks that measured it */
    double min_Bps, median_Bps, max_Bps; /* over those ranks of each one's best batch; < 0: none */
} mm_copy_rate;
typedef struct mm_copy_probe {
    int64_t max_bytes;  /* --copy-probe-bytes */
    int ranks_at_once;  /* every rank copied at the same time */
    int nsizes;
    mm_copy_rate rate[MM_COPY_MAX_SIZES];
} mm_copy_probe;
/* The probe's buffer sizes: MM_COPY_MIN_BYTES x4 ... below max_bytes, then max_bytes; none for
 * max_bytes <= 0. Pure. Returns how many (at most max). */
int mm_copy_ladder(int64_t max_bytes, int64_t *sizes, int max);
/* The largest buffer the copy probe will use for --copy-probe-bytes max_bytes: max_bytes, or 0
 * (no probe) in a SimGrid build. */
int64_t mm_copy_probe_bytes(int64_t max_bytes);
/* Copies per timed batch: enough to move MM_COPY_BATCH_BYTES, at least 1. Pure. */
int mm_copy_copies(int64_t bytes);
/* Least, median and largest of the positive rates (rates is reordered); returns how many were
 * positive (0: all three are -1). Pure. */
int mm_copy_summary(double *rates, int n, double *least, double *median, double *largest);

/* mpi.mpi_t: the library's control variables (MPI_T), on rank 0. */
typedef struct mm_mpit_info {
    int available;
    int cvars;
    char digest[17];  /* FNV-1a 64 of the sorted name=value lines, hex */
    mm_buf selected;  /* JSON object of the transport/collective selection variables */
} mm_mpit_info;
/* Reads every control variable (MPI_T_init_thread ... MPI_T_finalize). Local, any time after
 * MPI_Init. Fills info (available = 0 when the library offers no MPI_T). */
void mm_mpit_collect(mm_mpit_info *info);
/* Is a control variable one that selects transports or collective algorithms? */
int mm_mpit_is_selection(const char *name);

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
    int nprocs;
    mm_cpu_track cpu;    /* this rank's */
    double khz_start;    /* this rank's CPU frequency at the start; <= 0 unreadable */
    mm_mpit_info mpit;   /* rank 0 */
    mm_cacheline_probe *probes; /* rank 0: nprobes entries */
    int nprobes;
    /* probes.empty_region_ns: max over ranks of the median empty timed region (rank 0) */
    int has_empty_region;
    double empty_region_ns;
    mm_pair_choice pair;  /* probes.pingpong_pair; chosen_by MM_PAIR_NONE without ping-pongs */
    int has_survey;        /* probes.latency_floor: the sampled pairs' round trips (pairs.c) */
    mm_pair_survey survey;
    int has_copy;          /* probes.copy_bandwidth (rank 0) */
    mm_copy_probe copy;
    mm_mpi_error err;    /* the first MPI failure while collecting */
    int nomem;           /* every rank: rank 0 had no memory for the rank table (nothing gathered) */
} mm_provenance;

/* Collective: collects everything (rank 0 gathers host/pid/affinity from every rank); the MPI_T
 * control variables only when read_mpit (mpi.mpi_t stays null otherwise: --mpit-from). */
void mm_provenance_collect(mm_provenance *p, MPI_Comm comm, int read_mpit);
/* Collective: the cache-line probe (probe.c) between the first two ranks of each host, results
 * on rank 0 in p->probes. Outside any test. */
void mm_provenance_probe(mm_provenance *p, MPI_Comm comm, const mm_timer *timer);
/* Collective: the systematic overhead of one measurement (SKaMPI §3.1): each rank's median of
 * MM_EMPTY_REGION_REPS empty timed regions (two timer reads, as the loop takes them), the max
 * over ranks on rank 0 in p->empty_region_ns. Outside any test. */
#ifdef MM_SIMGRID
/* Under SimGrid's SMPI every timer read is a simulation step of the same simulated cost
 * (timer.c): 1001 regions on each of 1024 ranks took ~12 s of simulator time and tell nothing
 * that 21 do not. */
enum { MM_EMPTY_REGION_REPS = 21 };
#else
enum { MM_EMPTY_REGION_REPS = 1001 };
#endif
void mm_provenance_probe_empty(mm_provenance *p, MPI_Comm comm, const mm_timer *timer);
/* Collective: the copy-bandwidth probe (probe_copy.c) with buffers up to max_bytes (0: none),
 * results on rank 0 in p->copy. Outside any test. */
void mm_provenance_probe_copy(mm_provenance *p, MPI_Comm comm, const mm_timer *timer, int64_t max_bytes);
/* Rank 0: records load and wall time at the end; every rank's CPUs seen and frequency are
 * gathered. own CPU = sum over ranks (collective). */
void mm_provenance_finish(mm_provenance *p, MPI_Comm comm);
void mm_provenance_free(mm_provenance *p);
/* The environment rule (environment.c): a variable is recorded when its name starts with one of
 * mm_env_record_prefixes; its value is redacted when its name contains one of mm_env_secret_words
 * (any case). Both NULL-terminated; --describe publishes them so that the Python half redacts
 * what it shows the same way. */
extern const char *const mm_env_record_prefixes[];
extern const char *const mm_env_secret_words[];
int mm_env_name_is_secret(const char *name);
int mm_env_name_is_recorded(const char *name);
/* Renders the recorded variables of envp as a JSON object, secrets redacted. */
void mm_environment_json(mm_buf *out, char **envp);

/* meta.json "conditions": what the binary noticed, as facts with a stable code (docs/FORMAT.md).
 * Entries are found by (code, where) so that one that grows during a launch is rewritten. */
#define MM_MAX_CONDITIONS 48
typedef struct mm_condition {
    char code[32];
    char where[96];
    char message[640];
    char hint[320];
} mm_condition;
typedef struct mm_conditions {
    mm_condition item[MM_MAX_CONDITIONS];
    int n;
    int dropped; /* entries that did not fit */
} mm_conditions;
/* The entry with this code and where (where may be NULL), created empty when absent; NULL when
 * the list is full (counted in dropped). */
mm_condition *mm_conditions_entry(mm_conditions *c, const char *code, const char *where);

/* meta.json "phases": the wall time of each phase of a launch, in the order they run, on rank
 * 0's CLOCK_MONOTONIC (bench/launch.c measures them; docs/FORMAT.md says what each holds). */
enum { MM_PHASE_INIT, MM_PHASE_SYNC, MM_PHASE_PROBES, MM_PHASE_TESTS, MM_PHASE_WRITE, MM_NPHASES };
/* The probes of the "probes" phase, in the order they run (bench/launch.c). */
enum { MM_PROBE_CACHELINE, MM_PROBE_EMPTY_REGION, MM_PROBE_COPY, MM_PROBE_PAIRS, MM_NPROBE_STEPS };
typedef struct mm_phases {
    double start_s[MM_NPHASES]; /* seconds since rank 0's process entered main; < 0: not begun */
    double seconds[MM_NPHASES]; /* its wall time; < 0: not finished */
    /* each probe's wall time within "probes" (meta.json phases.probes.steps); < 0: not run */
    double probe_seconds[MM_NPROBE_STEPS];
} mm_phases;
/* The word meta.json uses for a phase (NULL outside the enum). */
const char *mm_phase_name(int phase);

/* What meta.json describes: plain values and arrays filled by bench/launch_state.c (and by the
 * unit tests); output renders them and calls nothing above it. */
typedef struct mm_launch {
    const mm_config *cfg;
    int nprocs;
    const char *status; /* running | complete | incomplete | failed */
    const mm_timer *timer;
    const mm_sync_facts *sync;          /* NULL: clock_sync null, config resolved as none */
    const char *procsync_method;        /* NULL: proc_sync null */
    const char *procsync_scheme;
    const mm_op_facts *ops;             /* meta.json "operations" */
    int nops;
    const mm_provenance *prov;
    const mm_test *tests;
    int ntests;
    int64_t epoch_local_ns_rank0;
    /* clock-sync quality (rank 0) */
    int nresidual_start, nresidual_end; /* -1 when not measured */
    int *residual_ranks_start, *residual_ranks_end;
    int64_t *residual_start_ns, *residual_end_ns;
    /* per-rank models and parents gathered to rank 0 */
    const mm_clock_model *models; /* nprocs */
    const int *parents;           /* nprocs */
    /* virtual timer truth, per rank (NULL unless virtual) */
    const int64_t *virtual_offsets_ns;
    const double *virtual_skews_ppm;
    const mm_conditions *conditions;
    /* --sizes auto: what the refinement did per operation (rank 0; NULL without it) */
    const mm_refine_op *refine;
    int nrefine;
    const char *counters_json; /* meta.json "counters", rendered by counters (NULL: null) */
    const mm_phases *phases;   /* meta.json "phases" (NULL: null) */
} mm_launch;

/* Renders meta.json into out (replacing what out held): pretty-printed, schema_version first,
 * NULL pointers in l rendered as null. */
void mm_meta_render(const mm_launch *l, mm_buf *out);
/* meta.json's "config" object (sync: the clock sync's parameters and model kind in use) and
 * "operations" object, also printed by --validate. */
void mm_meta_render_config(mm_json *j, const mm_config *c, const mm_sync_facts *sync);
void mm_meta_render_operations(mm_json *j, const mm_op_facts *ops, int nops);

/* The launch folder. */
typedef struct mm_outdir {
    char path[MM_PATH_LEN];
    FILE *raw, *sync;
} mm_outdir;

/* Rank 0 only, before anything is measured: checks --out (exists and not empty without
 * --force; not creatable/writable) without creating it: 0, or MM_E_INPUT with a message. */
mm_status mm_outdir_check(const char *path, int force, char *err, size_t err_len);
/* Creates the folder (and parents) and opens raw.csv/sync.csv with their headers; in a used
 * folder (--force) raw.csv, sync.csv and meta.json are truncated. 0, or MM_E_FAILED with a message. */
mm_status mm_outdir_open(mm_outdir *o, const char *path, char *err, size_t err_len);
/* Flushes and closes raw.csv and sync.csv (their fsync is the final meta.json write's). */
void mm_outdir_close(mm_outdir *o);
/* How a meta.json write ends (docs/FORMAT.md, "A launch folder"). A checkpoint (while
 * the launch runs) is renamed into place: a reader never sees half of it and a killed launch
 * keeps it, but nothing is fsync'd, since each fsync waits for the file system's journal (tens of
 * ms on a busy disk, a launch's largest cost beside IMB's, which writes nothing). The final write
 * (the launch's status complete or failed) fsyncs raw.csv, sync.csv and the temporary meta.json
 * before the rename and the folder after it, so a finished launch survives a machine crash. */
typedef enum { MM_META_CHECKPOINT = 0, MM_META_FINAL = 1 } mm_meta_write;
/* Writes text to <dir>/meta.json atomically (temporary file, rename; `how` MM_META_FINAL: the
 * data files and the temporary file fsync'd first, the folder after). 0, or MM_E_FAILED with
 * errno set (the temporary file is removed). */
mm_status mm_outdir_write_meta(mm_outdir *o, const mm_buf *meta, mm_meta_write how);

/* raw.csv's header (docs/FORMAT.md): raw format 2 = format 1 + the nonblocking components. */
#define MM_RAW_HEADER                                                                          \
    "test,op,size,rank,rep,start_ns,end_ns,valid,gstart_ns,gend_ns,init_ns,test_ns,wait_ns,"   \
    "compute_ns,blocking_ns\n"
/* Appends the rows of one test and flushes them (the final meta.json write fsyncs them).
 * start/end/gstart/gend/invalid are [rank * nrep + rep] arrays gathered on rank 0 (raw times;
 * the one launch epoch, rank 0's local time at start, is subtracted here from local and global
 * times alike).
 * has_global = 0 leaves gstart/gend empty (they may be NULL). components: NULL (their columns
 * stay empty), or the MM_NBC_NCOMPONENTS durations of a nonblocking test in the header's order,
 * each [rank * nrep + rep]; INT64_MIN is written empty. reduced = 1 writes one row per
 * repetition (components: the maximum over ranks). 0, or MM_E_FAILED (errno EINVAL for bad arguments,
 * which writes nothing). */
/* The full rows of ranks first_rank .. first_rank + nranks - 1 (arrays [r * nrep + rep] with r
 * counted from first_rank), as mm_raw_write_test writes them without --raw reduced: so that rank 0
 * can write a launch's rows a chunk of ranks at a time (bench/gather.c). 0, or MM_E_FAILED (errno). */
mm_status mm_raw_write_ranks(FILE *f, const mm_test *t, int first_rank, int nranks, long nrep,
                             const int64_t *start, const int64_t *end, const int64_t *gstart,
                             const int64_t *gend, const int32_t *invalid, const int64_t *const *components,
                             int64_t epoch_ns, int has_global);
mm_status mm_raw_write_test(FILE *f, const mm_test *t, int nprocs, long nrep, const int64_t *start,
                            const int64_t *end, const int64_t *gstart, const int64_t *gend,
                            const int32_t *invalid, const int64_t *const *components, int64_t epoch_ns,
                            int has_global, int reduced);
/* Appends sync records (local_ns minus the launch epoch) and flushes them (the final meta.json
 * write fsyncs them). 0, or MM_E_FAILED (EINVAL for an unknown kind: nothing is written). */
mm_status mm_sync_write(FILE *f, const mm_sync_record *rec, size_t n, int64_t epoch_ns);

#endif
