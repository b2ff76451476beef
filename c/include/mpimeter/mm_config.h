/* mm_config.h — the resolved configuration of a launch. Parsed and validated once on rank 0
 * (mm_config_parse), then broadcast as bytes (the struct is plain data, same binary everywhere). */
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

typedef enum { MM_MODE_BENCH = 0, MM_MODE_HELP, MM_MODE_LIST_OPS, MM_MODE_SYNC_CHECK, MM_MODE_VERSION } mm_mode;

typedef struct mm_config {
    mm_mode mode;
    char ops[MM_MAX_OPS][MM_NAME_LEN];
    int nops;
    int64_t sizes[MM_MAX_SIZES];
    int nsizes;
    int nrep, warmup;
    char timer[MM_NAME_LEN];
    char clocksync[MM_MAX_ALGS][MM_NAME_LEN]; /* a list only for --sync-check */
    int nclocksync;
    char procsync[MM_NAME_LEN];
    double window_us; /* 0 = derive from a pilot (auto) */
    int window_given; /* --window-us given (a number or auto) */
    uint64_t seed;
    int seed_given;
    int64_t cold_cache_bytes;
    int root;
    char datatype[MM_NAME_LEN];
    char reduce_op[MM_NAME_LEN];
    char out[MM_PATH_LEN];
    int force;
    int raw_reduced;
    /* virtual timer */
    char virtual_base[MM_NAME_LEN];
    double virtual_offset_s;
    double virtual_skew_ppm;
    /* clock sync */
    mm_clocksync_params cs_params;
    double resync_s; /* <= 0: never; default depends on the algorithm */
    int resync_given;
    /* process sync */
    double roundtime_budget_s; /* per test */
    double bcast_factor;       /* roundtime/harmonize: start = now + factor * bcast time */
    /* --sync-check */
    double check_at_s[MM_MAX_CHECKS];
    int ncheck;
    int json;
    /* provenance */
    char argv_joined[MM_ARGV_LEN]; /* argv as a JSON array text, for meta.json */
} mm_config;

/* Fills defaults. */
void mm_config_defaults(mm_config *cfg);

/* Parses argv into cfg and validates everything that can be checked without MPI (names,
 * numbers, size lists, size/datatype compatibility, --out). Returns 0 on success; on error
 * returns 2 and writes one message naming the option and what is allowed into err. */
int mm_config_parse(mm_config *cfg, int argc, char **argv, char *err, size_t err_len);

/* Checks that need the communicator size (root < nprocs). 0, or 2 with a message. */
int mm_config_check_nprocs(const mm_config *cfg, int nprocs, char *err, size_t err_len);

/* Parses "8,1024,65536" or "8:1048576:x2" (or mixed "8,64:4096:x4"). 0, or 2 with a message. */
int mm_parse_sizes(const char *text, int64_t *sizes, int max, int *n, char *err, size_t err_len);

void mm_config_print_help(FILE *f);

/* The virtual timer's parameters of `rank`: offset uniform in +-virtual_offset_s and skew of
 * +-virtual_skew_ppm, drawn from the seed; rank 0 unshifted and unskewed. */
void mm_config_virtual_params(const mm_config *cfg, int rank, mm_virtual_params *vp);

/* The default resync period for an algorithm (offset-only: 1 s; others: never). */
double mm_config_effective_resync_s(const mm_config *cfg, const char *model_kind);

#endif
