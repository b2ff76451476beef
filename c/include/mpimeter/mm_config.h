/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_config.h — the resolved configuration of a launch, and the table of options it is parsed
 * from. Parsed and validated once on rank 0 (mm_config_parse), then broadcast as bytes (the struct
 * is plain data, same binary everywhere; the one pointer, topo.graph_text, is sent apart). The option table is the one place where an option's
 * name, type, bounds, default and help live: the parser, --help, --describe and the messages of
 * bad input all come from it (docs/FORMAT.md, "mpimeter-bench --describe"). */
#ifndef MM_CONFIG_H
#define MM_CONFIG_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mm_clocksync.h"
#include "mm_timer.h"

#define MM_MAX_OPS 64
#define MM_MAX_SIZES 128
#define MM_MAX_ALGS 16
#define MM_MAX_CHECKS 32
#define MM_NAME_LEN 32
#define MM_PATH_LEN 1024
#define MM_ARGV_LEN 8192
#define MM_MAX_COUNTERS 64      /* counters read per repetition (--mpit-pvars + --papi + --likwid) */
#define MM_COUNTER_NAME_LEN 96  /* a counter's name, terminating zero included */
#define MM_COUNTERS_TEXT 2048   /* --mpit-pvars / --papi / --likwid as given */
#define MM_MAX_LIST 256         /* entries of a list of whole numbers (--root, --nprocs, --workpieces) */
/* --graph-file: at most this many bytes of text (a graph of a few thousand ranks) */
#define MM_GRAPH_TEXT_MAX 65536

/* What meta.json records of a --graph-file graph (c/src/ops/ops_graph.c). */
typedef struct mm_graph_facts {
    int nodes;          /* ranks the graph holds; 0: no graph file */
    long edges;
    int out_min, out_max, in_min, in_max; /* degrees */
    char digest[17];    /* FNV-1a 64 of the file's bytes, hex */
} mm_graph_facts;

/* A list of whole numbers as given (--root 0,2), or `all` (--root all: every rank of the
 * communicator a test runs on, resolved per test by the plan). */
typedef struct mm_int_list {
    int n;   /* entries in v; 0 with all */
    int all; /* the word all was given */
    int v[MM_MAX_LIST];
} mm_int_list;

typedef enum {
    MM_MODE_BENCH = 0,
    MM_MODE_HELP,
    MM_MODE_LIST_OPS,
    MM_MODE_SYNC_CHECK,
    MM_MODE_VERSION,
    MM_MODE_DESCRIBE,
    MM_MODE_LIST_PVARS, /* --list-pvars: needs MPI (the library's performance variables) */
    MM_MODE_LIST_ALGORITHMS, /* --list-algorithms: needs MPI (its algorithm control variables) */
} mm_mode;

/* The option blocks: one per family of options, each filled by its rows of the option table
 * (options.c) and checked by its parser (app/parse_<family>.c or app/parse.c), and rendered into
 * meta.json's "config" by its renderer (output/meta_config.c). An option of a new family adds a
 * block here; mm_config keeps only the core: what runs (--ops, --sizes, --nrep) and how
 * (--procsync, --clocksync), and where it goes (--out). */

/* --nrep auto[:RULE] (bench/adaptive.c): how many repetitions are enough, decided on rank 0
 * every nrep_every recorded repetitions; --sizes auto:MIN:MAX[:xF] (SKaMPI §3.2): sizes holds the
 * initial geometric grid, and sizes are added per operation where linear interpolation is worst */
typedef struct mm_adaptive_opts {
    int sizes_auto;
    int64_t sizes_min, sizes_max;
    int sizes_factor;
    double sizes_precision; /* the interpolation error bound */
    int sizes_budget;       /* sizes added per operation, at most */
    int nrep_rule; /* MM_NREP_FIXED (a number was given), MM_NREP_CI, MM_NREP_RSE */
    int nrep_min, nrep_max, nrep_every;
    double precision;       /* ci: e (interval within +-e x median); rse: epsilon */
    double nrep_confidence; /* ci: 1 - alpha */
    double nrep_budget_s;   /* time budget per test */
} mm_adaptive_opts;

/* the local clock, and the virtual timer's parameters */
typedef struct mm_timer_opts {
    char timer[MM_NAME_LEN];
    char virtual_base[MM_NAME_LEN];
    double virtual_offset_s;
    double virtual_skew_ppm;
} mm_timer_opts;

/* clock sync: the algorithm's parameters and re-syncs */
typedef struct mm_clocksync_opts {
    /* --clocksync auto chose clocksync[0] for a launch over several clocks: a launch whose ranks
     * all read one kernel clock runs none instead (bench/launch.c) */
    int clocksync_auto;
    mm_clocksync_params params;
    double resync_s; /* <= 0: never; default depends on the algorithm */
    int resync_given;
} mm_clocksync_opts;

/* process sync */
typedef struct mm_procsync_opts {
    double window_us; /* 0 = derive from a pilot (auto) */
    int window_given; /* --window-us given (a number or auto) */
    int64_t start_tolerance_ns; /* 0 = automatic (docs/FORMAT.md, tests[].start_tolerance_ns) */
    double roundtime_budget_s; /* per test */
    double bcast_factor;       /* roundtime/harmonize: start = now + factor * bcast time */
    /* --procsync window's own policy on a busy machine (bench/switch.c, docs/FORMAT.md
     * "procsync_switches"): the auto window grows up to window_growth_max x the pilot's; a test
     * whose late fraction over a batch passes switch_late_fraction goes on with roundtime, then
     * barrier (1 = never switch) */
    int window_growth_max;
    double switch_late_fraction;
    /* every test's time budget: what is left of launch_budget_s over the tests left */
    double launch_budget_s;
} mm_procsync_opts;

/* which tests the plan holds, and in which order */
typedef struct mm_plan_opts {
    uint64_t seed;
    int seed_given;
    int order_ascending; /* --order: 0 shuffled (by the seed), 1 ascending (each operation's sizes) */
    /* --root LIST|all: one test per root for rooted operations (docs/FORMAT.md, tests[].root) */
    mm_int_list roots;
    /* --nprocs LIST: each test on sub-communicators of these sizes (the first k ranks; SKaMPI,
     * NBCBench); n = 0: on every rank of the launch */
    mm_int_list comm_sizes;
    /* --workpieces LIST: the pieces mw-workpieces' master hands out, one test per value
     * (SKaMPI: MPI_Waitsome varied over the number of workpieces; docs/FORMAT.md
     * tests[].workpieces) */
    mm_int_list workpieces;
    int pair[2];     /* --pair A,B of the ping-pongs */
    int pair_given;  /* 0 = auto: the launch picks the pair (SKaMPI's rule, pairs.c) */
} mm_plan_opts;

/* how each repetition is measured, and on which data */
typedef struct mm_measure_opts {
    int warmup;
    /* --batch N: calls per recorded repetition, timed once (IMB's MS2); 1 = one call */
    int batch;
    /* --back-to-back N: after each ping-pong or blocking collective test, N calls back to back
     * timed once (what OSU and IMB report), recorded as tests[].back_to_back; 0 = off */
    int back_to_back;
    /* --subtract-overhead: each test measures the empty timed region on its ranks (SKaMPI §3.1)
     * and records it (tests[].overhead_ns) for the analysis to subtract; raw.csv stays raw */
    int subtract_overhead;
    int64_t cold_cache_bytes;
    char datatype[MM_NAME_LEN];
    char reduce_op[MM_NAME_LEN];
} mm_measure_opts;

/* what the launch measures before its tests, or takes from an earlier launch */
typedef struct mm_probe_opts {
    int64_t copy_probe_bytes; /* --copy-probe-bytes: largest buffer of the copy probe; 0 = none */
    /* --copy-probe-from: the launch folder whose copy probe stands for this launch's ("" = this
     * launch probes itself); then no probe runs here */
    char copy_probe_from[MM_PATH_LEN];
    char mpit_from[MM_PATH_LEN]; /* --mpit-from: "" = this launch reads the MPI_T cvars */
} mm_probe_opts;

/* the launch folder and the terminal */
typedef struct mm_output_opts {
    /* no --out: the quick table (app/quick.c): a temporary launch folder, ascending order and no
     * copy probe unless given, the table on stdout */
    int quick;
    int force;
    int raw_reduced;
    /* a line per finished test on stderr (app/progress.c): MM_PROGRESS_* */
    int progress;
    char argv_joined[MM_ARGV_LEN]; /* provenance: argv as a JSON array text, for meta.json */
} mm_output_opts;

/* nonblocking collectives (Hoefler, Schneider & Lumsdaine 2010 §4) */
typedef struct mm_nbc_opts {
    int work_scheme;             /* --nbc-scheme: 0 time, 1 work */
    int64_t compute_ns;          /* --nbc-compute-ns: t_b; 0 = the test's blocking median (auto) */
    int64_t test_interval_bytes; /* --test-interval: 0 = no MPI_Test calls */
} mm_nbc_opts;

/* test-only faults */
typedef struct mm_inject_opts {
    char error_op[MM_NAME_LEN]; /* this op's calls get an invalid count */
    double late_wakeup_us;      /* the last rank oversleeps some starts */
    double sync_slope_ppm;      /* the last rank's drift-aware model gets this spurious slope
                                   after each sync */
    int fault;                  /* --inject-fault: 0 none, MM_FAULT_CRASH, MM_FAULT_HANG ... */
    char fault_op[MM_NAME_LEN]; /* ... rank 0 at the start of this op's test of fault_size */
    int64_t fault_size;
} mm_inject_opts;
enum { MM_FAULT_NONE, MM_FAULT_CRASH, MM_FAULT_HANG };

/* --sync-check */
typedef struct mm_sync_check_opts {
    double check_at_s[MM_MAX_CHECKS];
    int ncheck;
    int json;
} mm_sync_check_opts;

/* counters (c/src/counters/, docs/FORMAT.md "counters.csv"): as given ("" = off) */
typedef struct mm_counter_opts {
    char mpit_pvars[MM_COUNTERS_TEXT]; /* --mpit-pvars: "all" or names */
    char papi_events[MM_COUNTERS_TEXT]; /* --papi: event names */
    char likwid_group[MM_COUNTERS_TEXT]; /* --likwid: the group (or event set) of likwid-perfctr -g */
    /* resolved after MPI_Init by mm_counters_resolve: the performance variables read, and (rank
     * 0, for meta.json) those `all` left out with why, as a JSON array text */
    char counter_pvars[MM_MAX_COUNTERS][MM_COUNTER_NAME_LEN];
    int ncounter_pvars;
    char counters_left_out[8192];
} mm_counter_opts;

/* the topology of the neighborhood collectives (c/src/ops/ops_neighbor.c) */
typedef struct mm_topology_opts {
    int cart_ndims; /* --cart-dims; 0 dims = auto */
    int cart_dims[8];
    int cart_used; /* --ops has a neighborhood collective (meta.json "cart_dims") */
    /* --graph-file: a distributed graph instead (ops_graph.c) */
    char graph_file[MM_PATH_LEN];
    /* the file's text (NULL: no graph file), read and checked once on rank 0 into memory of its
     * own; app/main.c sends it to the other ranks apart from the configuration, and only when
     * there is a graph, then points each rank's copy here (the pointer broadcast with the struct
     * means nothing on another rank and is replaced) */
    const char *graph_text;
    mm_graph_facts graph; /* nodes == 0: no graph file */
} mm_topology_opts;

/* one-sided operations (c/src/ops/ops_rma.c) */
typedef struct mm_rma_opts {
    int sync;             /* --rma-sync: index in MM_RMA_SYNC_WORDS */
    int sync_given;       /* one-sided data movement needs it */
    int used;             /* --ops has a one-sided operation (meta.json "rma") */
    int window;           /* --rma-window: index in MM_RMA_WINDOW_WORDS */
    int burst;            /* --rma-burst */
    int64_t window_bytes; /* --rma-window-bytes; 0 = auto */
} mm_rma_opts;

/* what the binary does: a launch, or one of the modes that print and end */
typedef struct mm_run_opts {
    mm_mode mode;
    int validate_nprocs; /* --validate NP: check as a launch of NP ranks would, print the config */
} mm_run_opts;

typedef struct mm_config {
    /* the core */
    char ops[MM_MAX_OPS][MM_NAME_LEN];
    int nops;
    int ops_given; /* --ops given (--list-algorithms lists only their variables then) */
    int64_t sizes[MM_MAX_SIZES];
    int nsizes;
    int nrep; /* with --nrep auto, --nrep-max: the most a test may record */
    char clocksync[MM_MAX_ALGS][MM_NAME_LEN]; /* a list only for --sync-check */
    int nclocksync;
    char procsync[MM_NAME_LEN];
    char out[MM_PATH_LEN];
    /* the blocks */
    mm_run_opts run;
    mm_adaptive_opts adaptive;
    mm_timer_opts timing;
    mm_clocksync_opts cs;
    mm_procsync_opts ps;
    mm_plan_opts plan;
    mm_measure_opts measure;
    mm_probe_opts probe;
    mm_output_opts output;
    mm_nbc_opts nbc;
    mm_inject_opts inject;
    mm_sync_check_opts check;
    mm_counter_opts counters;
    mm_topology_opts topo;
    mm_rma_opts rma;
} mm_config;

/* ---- the option table (app/options.c) ---- */

typedef enum {
    MM_OPT_FLAG,   /* no value */
    MM_OPT_INT,    /* whole number, stored as int */
    MM_OPT_I64,    /* whole number, stored as int64_t */
    MM_OPT_FLOAT,  /* finite number, stored as double */
    MM_OPT_SEED,   /* unsigned 64-bit whole number */
    MM_OPT_NAME,   /* one name of a registry */
    MM_OPT_NAMES,  /* comma-separated names of a registry */
    MM_OPT_CHOICE, /* one of the fixed words of `choices` */
    MM_OPT_SIZES,  /* a size list with geometric ranges */
    MM_OPT_FLOATS, /* comma-separated numbers */
    MM_OPT_PATH,
    MM_OPT_NPROCS, /* --validate: a rank count */
    MM_OPT_PAIR,   /* two distinct ranks "A,B", or auto */
    MM_OPT_LIST,   /* comma-separated names checked against what the machine offers at launch */
    MM_OPT_INTS,   /* comma-separated distinct whole numbers in [min, max] (mm_int_list); with
                      MM_OPT_F_AUTO also the word of mm_option_auto_words (--root: all) */
} mm_opt_type;

enum {
    MM_OPT_F_BENCH = 1u << 0,      /* applies to a launch */
    MM_OPT_F_SYNC_CHECK = 1u << 1, /* applies to --sync-check */
    MM_OPT_F_PER_LAUNCH = 1u << 2, /* a value that differs per launch (--out, --seed, --force) */
    MM_OPT_F_INFO = 1u << 3,       /* prints something and exits (--help, --describe, ...) */
    MM_OPT_F_HIDDEN = 1u << 4,     /* not in --help (test-only) */
    MM_OPT_F_AUTO = 1u << 5,       /* also accepts the word "auto" */
    MM_OPT_F_ABOVE = 1u << 6,      /* the minimum itself is not allowed (> min) */
    MM_OPT_F_MODE = 1u << 7,       /* selects the mode (--sync-check) */
    MM_OPT_F_BELOW = 1u << 8,      /* the maximum itself is not allowed (< max) */
    MM_OPT_F_OR_ZERO = 1u << 9,    /* 0 (off, none) is allowed too, besides min to max */
    MM_OPT_F_DEFAULTED = 1u << 10, /* default_text is the starting value (mm_config_defaults sets
                                      it); without, the field starts at 0: auto, none, or the
                                      default of the module that owns it */
};

struct mm_option_spec;
/* Stores one option's value (the text as given; NULL for a flag) where the row says, after
 * checking it: 0, or MM_E_INPUT with the message in err. Every row has one (app/parse*.c). */
typedef mm_status (*mm_option_setter)(const struct mm_option_spec *o, const char *value,
                                      struct mm_config *cfg, char *err, size_t len);

typedef struct mm_option_spec {
    const char *name;    /* without the leading "--" */
    mm_opt_type type;
    unsigned flags;
    const char *metavar;
    const char *default_text; /* as --help shows it */
    const char *unit;         /* "bytes", "s", "us", "ns", "ppm", "repetitions", ... or NULL */
    double min, max;          /* numbers: the allowed range */
    const char *choices;      /* MM_OPT_NAME(S): the registry ("timers", ...); CHOICE: "a,b" */
    size_t offset;            /* where the value lives in mm_config (the generic setters) */
    const char *help;
    mm_option_setter set;
} mm_option_spec;

/* The table, in --help order. */
const mm_option_spec *mm_options(size_t *n);
const mm_option_spec *mm_option_find(const char *name, size_t name_len);
/* MM_OPT_F_AUTO options: the words accepted besides numbers, comma-separated ("auto", or for
 * --nrep "auto,auto:ci,auto:rse"). */
const char *mm_option_auto_words(const mm_option_spec *o);
/* "1 to 100000000", "more than 0, at most 3600", "... or auto": what a number may be. */
void mm_option_allowed_text(const mm_option_spec *o, char *out, size_t len);
/* Names a registry holds, comma-separated ("monotonic, tsc, ..."), for NAME(S) options. */
const char *mm_registry_names(const char *registry);
/* The position of value among a CHOICE option's words ("reduced" is 1 of "full,reduced"), or -1. */
int mm_option_choice_index(const mm_option_spec *o, const char *value);
/* What one entry of a registry is called in messages ("timer", "clock sync", ...). */
const char *mm_registry_what(const char *registry);

/* The words of bad-input messages, with {option}, {value}, {allowed}, {what} filled in. The same
 * templates are in --describe ("messages") so that mpimeter run says exactly what the binary
 * says. */
/* {value} quotes at most this many bytes of what was given (cut before a UTF-8 character it would
 * split, then "..."), a control byte as '?': a value of megabytes or an escape sequence stays out
 * of the message line. In --describe's limits (quoted_value), so the Python half quotes alike. */
#define MM_QUOTED_VALUE_MAX 80
extern const char *const MM_MSG_NOT_WHOLE;
extern const char *const MM_MSG_NOT_NUMBER;
extern const char *const MM_MSG_OUT_OF_RANGE;
extern const char *const MM_MSG_UNKNOWN_NAME;
extern const char *const MM_MSG_NOT_CHOICE;
mm_status mm_config_message(char *err, size_t len, const char *tmpl, const char *option,
                            const char *value, const char *allowed, const char *what);

/* Is v outside what a number option allows (its range, and 0 for MM_OPT_F_OR_ZERO)? */
int mm_option_out_of_range(const mm_option_spec *o, double v);

/* Parses a number option's text into cfg (by the spec's offset) after checking type and range.
 * 0, or MM_E_INPUT with the message in err. */
mm_status mm_option_parse_number(const mm_option_spec *o, const char *text, mm_config *cfg, char *err,
                                 size_t len);

/* The generic setters, by the row's offset: a whole number or a number (mm_option_parse_number);
 * a name of MM_NAME_LEN (MM_OPT_NAME); the position of the value among the row's choices, an int
 * (MM_OPT_CHOICE); a path of MM_PATH_LEN; an mm_int_list (MM_OPT_INTS); a flag: the int set to 1.
 * 0, or MM_E_INPUT with the message in err. */
mm_status mm_option_set_name(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len);
mm_status mm_option_set_choice(const mm_option_spec *o, const char *value, mm_config *cfg, char *err,
                               size_t len);
mm_status mm_option_set_path(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len);
mm_status mm_option_set_ints(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len);
mm_status mm_option_set_flag(const mm_option_spec *o, const char *value, mm_config *cfg, char *err, size_t len);

/* Parses an MM_OPT_INTS option's text ("0,2" or, with MM_OPT_F_AUTO, its word: all) into out.
 * 0, or MM_E_INPUT with the message in err. */
mm_status mm_option_parse_ints(const mm_option_spec *o, const char *text, mm_int_list *out, char *err,
                               size_t len);

/* ---- parsing and checking (app/parse.c) ---- */

/* Fills defaults. */
void mm_config_defaults(mm_config *cfg);

/* Parses argv into cfg and validates everything that can be checked without MPI (names,
 * numbers, size lists, size/datatype compatibility, --out). Returns 0 on success; on error
 * returns MM_E_INPUT and writes one message naming the option and what is allowed into err. */
mm_status mm_config_parse(mm_config *cfg, int argc, char **argv, char *err, size_t err_len);

/* The roots of the tests of a rooted operation on a communicator of `nprocs` ranks, into out
 * (room for MM_MAX_LIST, or nprocs with --root all); returns how many. */
int mm_config_roots(const mm_config *cfg, int nprocs, int *out, int max);
/* The communicator sizes of the tests on a launch of `nprocs` ranks (--nprocs, or nprocs), into
 * out (room for MM_MAX_LIST); returns how many. */
int mm_config_comm_sizes(const mm_config *cfg, int nprocs, int *out);

/* Checks that need the communicator size (root < nprocs). 0, or MM_E_INPUT with a message. */
mm_status mm_config_check_nprocs(const mm_config *cfg, int nprocs, char *err, size_t err_len);

/* Parses "8,1024,65536" or "8:1048576:x2" (or mixed "8,64:4096:x4"). 0, or MM_E_INPUT with a
 * message. */
mm_status mm_parse_sizes(const char *text, int64_t *sizes, int max, int *n, char *err, size_t err_len);

/* --progress / --quiet as given; app/main.c resolves MM_PROGRESS_AUTO (a terminal on rank 0's
 * stderr) before the options are broadcast, so every rank agrees. */
enum { MM_PROGRESS_AUTO = 0, MM_PROGRESS_ON = 1, MM_PROGRESS_OFF = 2 };
/* --help, wrapped to `width` columns (the terminal's, or 80). */
void mm_config_print_help(FILE *f, int width);

/* --describe: the binary's self-description as one JSON document (describe.c). */
void mm_config_print_describe(FILE *f);

/* --validate NP: the resolved configuration as meta.json's "config" would hold it, plus the
 * number of tests, as one JSON object on f (describe.c). */
void mm_config_print_validated(FILE *f, const mm_config *cfg);

/* The virtual timer's parameters of `rank`: offset uniform in +-virtual_offset_s and skew of
 * +-virtual_skew_ppm, drawn from the seed; rank 0 unshifted and unskewed. */
void mm_config_virtual_params(const mm_config *cfg, int rank, mm_virtual_params *vp);

/* The largest buffer this launch's copy probe copies: --copy-probe-bytes, or 0 when no probe
 * runs here (--copy-probe-bytes 0, or --copy-probe-from names the launch that measured it). */
int64_t mm_config_copy_probe_bytes_here(const mm_config *cfg);

/* The default resync period for an algorithm (offset-only: 1 s; others: never). */
double mm_config_effective_resync_s(const mm_config *cfg, const char *model_kind);

/* The start tolerance of the late-wakeup check (docs/FORMAT.md): --start-tolerance-ns, or
 * 10 x the timer's per-call overhead, at least 1000 ns. */
int64_t mm_config_start_tolerance_ns(const mm_config *cfg, double timer_overhead_ns);
/* Test only (--inject-fault): on rank 0, at the start of the named test, dies by SIGKILL (crash)
 * or stops for good (hang); returns at once for any other test or rank. */
void mm_config_inject_fault(const mm_config *cfg, const char *op, int64_t size, int rank);

#endif
