/* config.c — parsing and validating mpimeter-bench's options, once, on rank 0.
 *
 * Every option is a row of mm__options below (name, argument, default, help); the parser,
 * --help and the error messages all come from that table. Validation that needs only names and
 * numbers happens here; mm_config_check_nprocs adds what needs the communicator size. */
#include "mm_config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mm_bench.h"
#include "mm_clocksync.h"
#include "mm_json.h"
#include "mm_ops.h"
#include "mm_output.h"
#include "mm_procsync.h"
#include "mm_timer.h"

typedef enum { MM__ARG_NONE, MM__ARG_VALUE } mm__argkind;

typedef struct mm__option {
    const char *name; /* without the leading "--" */
    mm__argkind arg;
    const char *metavar;
    const char *default_text;
    const char *help;
} mm__option;

static const mm__option mm__options[] = {
    {"ops", MM__ARG_VALUE, "LIST", "allreduce,bcast,alltoall,barrier",
     "operations, comma-separated (see --list-ops)"},
    {"sizes", MM__ARG_VALUE, "SPEC", "8:65536:x8,65536",
     "sizes in bytes: a list (8,1024) and/or geometric ranges FROM:TO:xFACTOR (8:1048576:x2)"},
    {"nrep", MM__ARG_VALUE, "N", "300", "recorded repetitions per test (>= 1)"},
    {"warmup", MM__ARG_VALUE, "N", "10", "unrecorded repetitions before each test (>= 0)"},
    {"timer", MM__ARG_VALUE, "NAME", "monotonic", "local clock (see the list below)"},
    {"clocksync", MM__ARG_VALUE, "NAME", "auto",
     "clock synchronization; auto = hca3 when the process sync needs a global clock, else none;"
     " a comma-separated list with --sync-check"},
    {"procsync", MM__ARG_VALUE, "NAME", "window", "process synchronization before each repetition"},
    {"window-us", MM__ARG_VALUE, "US", "auto",
     "window size in microseconds for --procsync window; auto = from a pilot measurement"},
    {"seed", MM__ARG_VALUE, "N", "random", "seed of the shuffled test order (drawn and recorded)"},
    {"cold-cache", MM__ARG_VALUE, "BYTES", "0",
     "overwrite a buffer of this size after each repetition, outside the timed region"},
    {"root", MM__ARG_VALUE, "RANK", "0", "root rank of rooted operations"},
    {"datatype", MM__ARG_VALUE, "NAME", "int",
     "MPI datatype of the buffers (sizes must be multiples of its size; byte allows only bitwise reductions)"},
    {"reduce-op", MM__ARG_VALUE, "NAME", "sum", "reduction operation of reducing collectives"},
    {"out", MM__ARG_VALUE, "DIR", "(required)", "the launch folder to write"},
    {"force", MM__ARG_NONE, NULL, "off", "write into --out even if it exists and is not empty"},
    {"raw", MM__ARG_VALUE, "MODE", "full", "full = one row per rank and repetition; reduced = one per repetition"},
    {"virtual-base", MM__ARG_VALUE, "NAME", "monotonic", "timer wrapped by --timer virtual"},
    {"virtual-offset-s", MM__ARG_VALUE, "X", "0", "virtual timer: offsets drawn uniformly in +-X s (rank 0: 0)"},
    {"virtual-skew-ppm", MM__ARG_VALUE, "Y", "0", "virtual timer: skews of +Y or -Y ppm (rank 0: 0)"},
    {"nfit", MM__ARG_VALUE, "N", "algorithm's", "clock sync: fit points per edge (jk, hca*)"},
    {"pingpongs", MM__ARG_VALUE, "N", "algorithm's", "clock sync: max round trips per offset measurement"},
    {"n-nonimproving", MM__ARG_VALUE, "N", "algorithm's", "clock sync: stop after N round trips that did not beat the min RTT"},
    {"min-rounds", MM__ARG_VALUE, "N", "algorithm's", "clock sync (skampi): rounds before the early stop may fire"},
    {"fit-span-s", MM__ARG_VALUE, "S", "algorithm's", "clock sync: spread the fit points over S seconds"},
    {"resync-s", MM__ARG_VALUE, "T", "1 for offset-only syncs, else never",
     "re-run the clock sync between tests when the last one is older than T s (0 = never)"},
    {"roundtime-budget-s", MM__ARG_VALUE, "S", "1",
     "roundtime/harmonize: time budget per test (a test it ends before --nrep is marked in meta.json)"},
    {"bcast-factor", MM__ARG_VALUE, "K", "2", "roundtime: start = now + K x broadcast time"},
    {"sync-check", MM__ARG_NONE, NULL, "off", "check the clock syncs named in --clocksync instead of benchmarking"},
    {"check-at", MM__ARG_VALUE, "LIST", "0,1,2,5,10", "--sync-check: seconds after the sync to measure residuals"},
    {"json", MM__ARG_NONE, NULL, "off", "--sync-check: print one JSON object"},
    {"list-ops", MM__ARG_NONE, NULL, "", "list the operations and exit"},
    {"version", MM__ARG_NONE, NULL, "", "print the version and exit"},
    {"help", MM__ARG_NONE, NULL, "", "this text"},
};
enum { MM__NOPTIONS = sizeof mm__options / sizeof mm__options[0] };

static int mm__fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int mm__fail(char *err, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return 2;
}

void mm_config_defaults(mm_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->mode = MM_MODE_BENCH;
    cfg->nrep = 300;
    cfg->warmup = 10;
    snprintf(cfg->timer, sizeof cfg->timer, "monotonic");
    snprintf(cfg->procsync, sizeof cfg->procsync, "window");
    snprintf(cfg->datatype, sizeof cfg->datatype, "int");
    snprintf(cfg->reduce_op, sizeof cfg->reduce_op, "sum");
    snprintf(cfg->virtual_base, sizeof cfg->virtual_base, "monotonic");
    cfg->roundtime_budget_s = 1.0;
    cfg->bcast_factor = 2.0;
    const double checks[] = {0, 1, 2, 5, 10};
    cfg->ncheck = 5;
    for (int i = 0; i < cfg->ncheck; i++) cfg->check_at_s[i] = checks[i];
    /* 0 = "the algorithm's default": resolved by the clock-sync module. */
    cfg->cs_params.nfit = 0;
    cfg->cs_params.pingpong_cap = 0;
    cfg->cs_params.n_nonimproving = 0;
    cfg->cs_params.min_rounds = 0;
    cfg->cs_params.fit_span_s = 0;
}

/* ---- number parsing: the whole text must be a number in range ---- */

static int mm__parse_i64(const char *opt, const char *text, int64_t lo, int64_t hi, int64_t *out,
                         char *err, size_t len) {
    char *end = NULL;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end != '\0')
        return mm__fail(err, len, "--%s: '%s' is not a whole number", opt, text);
    if (v < lo || v > hi)
        return mm__fail(err, len, "--%s: %lld is out of range; allowed: %" PRId64 " to %" PRId64,
                        opt, v, lo, hi);
    *out = v;
    return 0;
}

static int mm__parse_double(const char *opt, const char *text, double lo, double hi, double *out,
                            char *err, size_t len) {
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !isfinite(v))
        return mm__fail(err, len, "--%s: '%s' is not a number", opt, text);
    if (v < lo || v > hi)
        return mm__fail(err, len, "--%s: %g is out of range; allowed: %g to %g", opt, v, lo, hi);
    *out = v;
    return 0;
}

static int mm__parse_int(const char *opt, const char *text, int lo, int hi, int *out, char *err,
                         size_t len) {
    int64_t v;
    int rc = mm__parse_i64(opt, text, lo, hi, &v, err, len);
    if (rc == 0) *out = (int)v;
    return rc;
}

/* ---- lists ---- */

/* Splits text at commas into at most max names; empty items refused. */
static int mm__split_names(const char *opt, const char *text, char (*names)[MM_NAME_LEN], int max,
                           int *n, char *err, size_t len) {
    *n = 0;
    const char *p = text;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t item = comma ? (size_t)(comma - p) : strlen(p);
        if (item == 0) return mm__fail(err, len, "--%s: empty item in '%s'", opt, text);
        if (item >= MM_NAME_LEN) return mm__fail(err, len, "--%s: name too long in '%s'", opt, text);
        if (*n >= max) return mm__fail(err, len, "--%s: more than %d items", opt, max);
        memcpy(names[*n], p, item);
        names[*n][item] = '\0';
        (*n)++;
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

int mm_parse_sizes(const char *text, int64_t *sizes, int max, int *n, char *err, size_t len) {
    static const char *allowed =
        "allowed: whole numbers of bytes, comma-separated (8,1024), and/or geometric ranges "
        "FROM:TO:xFACTOR (8:1048576:x2)";
    *n = 0;
    if (*text == '\0') return mm__fail(err, len, "--sizes: empty; %s", allowed);
    char buf[4096];
    if (strlen(text) >= sizeof buf) return mm__fail(err, len, "--sizes: too long");
    snprintf(buf, sizeof buf, "%s", text);
    /* split by hand: strtok would skip the empty item of "8,,16" without a word */
    for (char *item = buf, *next; item; item = next) {
        char *comma = strchr(item, ',');
        next = comma ? comma + 1 : NULL;
        if (comma) *comma = '\0';
        if (*item == '\0') return mm__fail(err, len, "--sizes: empty item in '%s'; %s", text, allowed);
        char *c1 = strchr(item, ':');
        if (!c1) {
            char *end;
            errno = 0;
            long long v = strtoll(item, &end, 10);
            if (errno || end == item || *end || v < 0)
                return mm__fail(err, len, "--sizes: '%s' is not a size; %s", item, allowed);
            if (*n >= max) return mm__fail(err, len, "--sizes: more than %d sizes", max);
            sizes[(*n)++] = v;
            continue;
        }
        char *c2 = strchr(c1 + 1, ':');
        char *from_end, *to_end, *factor_end;
        errno = 0;
        long long from = strtoll(item, &from_end, 10);
        long long to = c2 ? strtoll(c1 + 1, &to_end, 10) : -1;
        long long factor = (c2 && c2[1] == 'x') ? strtoll(c2 + 2, &factor_end, 10) : -1;
        if (errno || !c2 || from_end != c1 || to_end != c2 || c2[1] != 'x' || *factor_end ||
            factor_end == c2 + 2)
            return mm__fail(err, len, "--sizes: '%s' is not a range; %s", item, allowed);
        if (from < 1 || to < from || factor < 2)
            return mm__fail(err, len,
                            "--sizes: range '%s' needs 1 <= FROM <= TO and FACTOR >= 2", item);
        for (long long v = from; v <= to; v *= factor) {
            if (*n >= max) return mm__fail(err, len, "--sizes: more than %d sizes", max);
            sizes[(*n)++] = v;
            if (v > LLONG_MAX / factor) break;
        }
    }
    return 0;
}

static int mm__parse_check_at(const char *text, mm_config *cfg, char *err, size_t len) {
    char names[MM_MAX_CHECKS][MM_NAME_LEN];
    int n;
    int rc = mm__split_names("check-at", text, names, MM_MAX_CHECKS, &n, err, len);
    if (rc) return rc;
    for (int i = 0; i < n; i++) {
        rc = mm__parse_double("check-at", names[i], 0, 3600, &cfg->check_at_s[i], err, len);
        if (rc) return rc;
        if (i > 0 && cfg->check_at_s[i] < cfg->check_at_s[i - 1])
            return mm__fail(err, len, "--check-at: times must not decrease ('%s')", text);
    }
    cfg->ncheck = n;
    return 0;
}

/* argv as a JSON array, for meta.json. */
static void mm__argv_json(mm_config *cfg, int argc, char **argv) {
    mm_buf b = {0};
    mm_buf_append(&b, "[", 1);
    for (int i = 0; i < argc; i++) {
        if (i) mm_buf_append(&b, ", ", 2);
        mm_json_escape(&b, argv[i]);
    }
    mm_buf_append(&b, "]", 1);
    if (b.len < sizeof cfg->argv_joined) {
        memcpy(cfg->argv_joined, b.data, b.len);
        cfg->argv_joined[b.len] = '\0';
    } else {
        snprintf(cfg->argv_joined, sizeof cfg->argv_joined, "[\"(argv too long to record)\"]");
    }
    mm_buf_free(&b);
}

static const mm__option *mm__find_option(const char *name, size_t name_len) {
    for (int i = 0; i < MM__NOPTIONS; i++)
        if (strlen(mm__options[i].name) == name_len && strncmp(mm__options[i].name, name, name_len) == 0)
            return &mm__options[i];
    return NULL;
}

/* Applies one option. Returns 0 or 2. */
static int mm__apply(mm_config *cfg, const char *name, const char *value, int *seen_clocksync,
                     char *err, size_t len) {
#define IS(s) (strcmp(name, s) == 0)
    int64_t v64;
    if (IS("ops")) return mm__split_names(name, value, cfg->ops, MM_MAX_OPS, &cfg->nops, err, len);
    if (IS("sizes")) return mm_parse_sizes(value, cfg->sizes, MM_MAX_SIZES, &cfg->nsizes, err, len);
    if (IS("nrep")) return mm__parse_int(name, value, 1, 100000000, &cfg->nrep, err, len);
    if (IS("warmup")) return mm__parse_int(name, value, 0, 100000000, &cfg->warmup, err, len);
    if (IS("root")) return mm__parse_int(name, value, 0, INT_MAX, &cfg->root, err, len);
    if (IS("window-us")) {
        cfg->window_given = 1;
        if (strcmp(value, "auto") == 0) { cfg->window_us = 0; return 0; } /* the default */
        if (mm__parse_double(name, value, 0, 1e9, &cfg->window_us, err, len) != 0 || cfg->window_us <= 0)
            return mm__fail(err, len, "--window-us: '%s' is not allowed; allowed: a number of microseconds > 0 "
                            "and <= 1e9, or auto (a window derived from a pilot measurement)", value);
        return 0;
    }
    if (IS("seed")) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(value, &end, 10);
        if (errno || end == value || *end || value[0] == '-')
            return mm__fail(err, len, "--seed: '%s' is not a whole number >= 0", value);
        cfg->seed = s;
        cfg->seed_given = 1;
        return 0;
    }
    if (IS("cold-cache")) {
        int rc = mm__parse_i64(name, value, 0, (int64_t)1 << 36, &v64, err, len);
        cfg->cold_cache_bytes = v64;
        return rc;
    }
    if (IS("timer") || IS("procsync") || IS("datatype") || IS("reduce-op") || IS("virtual-base")) {
        char *dst = IS("timer") ? cfg->timer : IS("procsync") ? cfg->procsync
                  : IS("datatype") ? cfg->datatype : IS("reduce-op") ? cfg->reduce_op
                  : cfg->virtual_base;
        if (strlen(value) >= MM_NAME_LEN || !*value)
            return mm__fail(err, len, "--%s: '%s' is not a valid name", name, value);
        snprintf(dst, MM_NAME_LEN, "%s", value);
        return 0;
    }
    if (IS("clocksync")) {
        *seen_clocksync = 1;
        return mm__split_names(name, value, cfg->clocksync, MM_MAX_ALGS, &cfg->nclocksync, err, len);
    }
    if (IS("out")) {
        if (!*value) return mm__fail(err, len, "--out: empty path");
        if (strlen(value) >= MM_PATH_LEN) return mm__fail(err, len, "--out: path too long");
        snprintf(cfg->out, sizeof cfg->out, "%s", value);
        return 0;
    }
    if (IS("force")) { cfg->force = 1; return 0; }
    if (IS("json")) { cfg->json = 1; return 0; }
    if (IS("sync-check")) { cfg->mode = MM_MODE_SYNC_CHECK; return 0; }
    if (IS("raw")) {
        if (strcmp(value, "full") == 0) cfg->raw_reduced = 0;
        else if (strcmp(value, "reduced") == 0) cfg->raw_reduced = 1;
        else return mm__fail(err, len, "--raw: '%s' is not a mode; allowed: full, reduced", value);
        return 0;
    }
    if (IS("virtual-offset-s")) return mm__parse_double(name, value, 0, 1e6, &cfg->virtual_offset_s, err, len);
    if (IS("virtual-skew-ppm")) return mm__parse_double(name, value, 0, 1e5, &cfg->virtual_skew_ppm, err, len);
    if (IS("nfit")) return mm__parse_int(name, value, 1, 1000000, &cfg->cs_params.nfit, err, len);
    if (IS("pingpongs")) return mm__parse_int(name, value, 1, 10000000, &cfg->cs_params.pingpong_cap, err, len);
    if (IS("n-nonimproving")) return mm__parse_int(name, value, 1, 10000000, &cfg->cs_params.n_nonimproving, err, len);
    if (IS("min-rounds")) return mm__parse_int(name, value, 1, 10000000, &cfg->cs_params.min_rounds, err, len);
    if (IS("fit-span-s")) {
        int rc = mm__parse_double(name, value, 0, 3600, &cfg->cs_params.fit_span_s, err, len);
        if (rc == 0 && cfg->cs_params.fit_span_s <= 0) return mm__fail(err, len, "--fit-span-s: must be > 0");
        return rc;
    }
    if (IS("resync-s")) {
        cfg->resync_given = 1;
        return mm__parse_double(name, value, 0, 1e6, &cfg->resync_s, err, len);
    }
    if (IS("roundtime-budget-s")) {
        int rc = mm__parse_double(name, value, 0, 1e6, &cfg->roundtime_budget_s, err, len);
        if (rc == 0 && cfg->roundtime_budget_s <= 0) return mm__fail(err, len, "--roundtime-budget-s: must be > 0");
        return rc;
    }
    if (IS("bcast-factor")) return mm__parse_double(name, value, 1, 1000, &cfg->bcast_factor, err, len);
    if (IS("check-at")) return mm__parse_check_at(value, cfg, err, len);
    if (IS("list-ops")) { cfg->mode = MM_MODE_LIST_OPS; return 0; }
    if (IS("help")) { cfg->mode = MM_MODE_HELP; return 0; }
    if (IS("version")) { cfg->mode = MM_MODE_VERSION; return 0; }
#undef IS
    return mm__fail(err, len, "internal: option --%s has no handler", name);
}

/* The checks that need the registries; run once after all options are read. */
static int mm__validate(mm_config *cfg, int seen_clocksync, char *err, size_t len) {
    char why[512];
    /* timer */
    const mm_timer_vtable *tv = mm_timer_find(cfg->timer);
    if (!tv) return mm__fail(err, len, "--timer: unknown timer '%s'; allowed: %s", cfg->timer, mm_timer_names());
    if (tv->available && tv->available(why, sizeof why) != 0)
        return mm__fail(err, len, "--timer %s: not available on this machine: %s", cfg->timer, why);
    if (strcmp(cfg->timer, "virtual") == 0) {
        const mm_timer_vtable *bv = mm_timer_find(cfg->virtual_base);
        if (!bv || strcmp(cfg->virtual_base, "virtual") == 0)
            return mm__fail(err, len, "--virtual-base: '%s' is not a timer the virtual timer can wrap; allowed: %s (not virtual)",
                            cfg->virtual_base, mm_timer_names());
        if (bv->available && bv->available(why, sizeof why) != 0)
            return mm__fail(err, len, "--virtual-base %s: not available on this machine: %s", cfg->virtual_base, why);
    } else if (cfg->virtual_offset_s != 0 || cfg->virtual_skew_ppm != 0) {
        return mm__fail(err, len, "--virtual-offset-s/--virtual-skew-ppm apply only to --timer virtual (given: --timer %s)", cfg->timer);
    }
    /* process sync */
    const mm_procsync_vtable *pv = mm_procsync_find(cfg->procsync);
    if (!pv) return mm__fail(err, len, "--procsync: unknown process sync '%s'; allowed: %s", cfg->procsync, mm_procsync_names());
    if (cfg->window_given && strcmp(cfg->procsync, "window") != 0)
        return mm__fail(err, len, "--window-us applies only to --procsync window (given: --procsync %s)", cfg->procsync);
    /* clock sync: "auto" resolves to the most accurate algorithm registered */
    if (!seen_clocksync || (cfg->nclocksync == 1 && strcmp(cfg->clocksync[0], "auto") == 0)) {
        const char *pick = "none";
        if (pv->needs_global_clock || cfg->mode == MM_MODE_SYNC_CHECK)
            pick = mm_clocksync_find("hca3") ? "hca3" : "skampi";
        snprintf(cfg->clocksync[0], MM_NAME_LEN, "%s", pick);
        cfg->nclocksync = 1;
    }
    for (int i = 0; i < cfg->nclocksync; i++)
        if (!mm_clocksync_find(cfg->clocksync[i]))
            return mm__fail(err, len, "--clocksync: unknown clock sync '%s'; allowed: %s", cfg->clocksync[i], mm_clocksync_names());
    if (cfg->mode == MM_MODE_BENCH) {
        if (cfg->nclocksync != 1)
            return mm__fail(err, len, "--clocksync: a list of algorithms is only for --sync-check; give one name");
        /* --clocksync none with a global-clock process sync is allowed (said in meta.json's
         * warnings): on one host the local clocks are one clock. Not when the virtual timer
         * shifts or skews them on purpose: every repetition would start at a wrong time. */
        int virtual_apart = strcmp(cfg->timer, "virtual") == 0 &&
                            (cfg->virtual_offset_s != 0 || cfg->virtual_skew_ppm != 0);
        if (pv->needs_global_clock && strcmp(cfg->clocksync[0], "none") == 0 && virtual_apart)
            return mm__fail(err, len,
                            "--timer virtual with --virtual-offset-s/--virtual-skew-ppm gives each rank its own "
                            "clock, --clocksync none leaves them unsynchronized, and --procsync %s starts every "
                            "repetition at a time on one global clock: every repetition would be invalid; "
                            "allowed: a clock sync (omit --clocksync, or e.g. --clocksync hca3), a process sync "
                            "without a global clock (--procsync barrier, none or loop-barrier), or zero virtual "
                            "offset and skew", cfg->procsync);
    }
    /* operations, datatype, sizes */
    int type_size;
    MPI_Datatype dt;
    if (!mm_datatype_lookup(cfg->datatype, &dt, &type_size))
        return mm__fail(err, len, "--datatype: unknown datatype '%s'; allowed: %s", cfg->datatype, mm_datatype_names());
    MPI_Op rop;
    if (!mm_reduce_op_lookup(cfg->reduce_op, &rop))
        return mm__fail(err, len, "--reduce-op: unknown reduction '%s'; allowed: %s", cfg->reduce_op, mm_reduce_op_names());
    int any_reduce = 0;
    for (int i = 0; i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (!op) {
            return mm__fail(err, len, "--ops: unknown operation '%s'; see mpimeter-bench --list-ops "
                            "for the allowed names", cfg->ops[i]);
        }
        for (int j = 0; j < i; j++)
            if (strcmp(cfg->ops[i], cfg->ops[j]) == 0)
                return mm__fail(err, len, "--ops: '%s' is given twice", cfg->ops[i]);
        if (op->flags & MM_OP_REDUCES) any_reduce = 1;
        if (op->flags & MM_OP_SIZE_UNUSED) continue;
        for (int s = 0; s < cfg->nsizes; s++) {
            char why_size[256];
            if (mm_op_check_size(op, cfg->sizes[s], type_size, why_size, sizeof why_size) != 0)
                return mm__fail(err, len, "--sizes: %s (operation %s, --datatype %s)", why_size, op->name, cfg->datatype);
        }
    }
    if (any_reduce && mm_reduce_op_check(cfg->reduce_op, cfg->datatype, why, sizeof why) != 0)
        return mm__fail(err, len, "--reduce-op %s with --datatype %s: %s", cfg->reduce_op, cfg->datatype, why);
    for (int s = 0; s < cfg->nsizes; s++)
        for (int t = 0; t < s; t++)
            if (cfg->sizes[s] == cfg->sizes[t])
                return mm__fail(err, len, "--sizes: %" PRId64 " is given twice", cfg->sizes[s]);
    /* output */
    if (cfg->mode == MM_MODE_BENCH) {
        if (!cfg->out[0]) return mm__fail(err, len, "--out: missing; give the launch folder to write (e.g. --out results/m1)");
        int rc = mm_outdir_check(cfg->out, cfg->force, err, len);
        if (rc) return 2;
    } else if (cfg->out[0] || cfg->force) {
        return mm__fail(err, len, "--out/--force do not apply to --sync-check (it prints its result)");
    }
    if (cfg->mode != MM_MODE_SYNC_CHECK && cfg->json)
        return mm__fail(err, len, "--json applies only to --sync-check");
    return 0;
}

int mm_config_parse(mm_config *cfg, int argc, char **argv, char *err, size_t len) {
    mm_config_defaults(cfg);
    int rc = mm_parse_sizes("8:65536:x8,65536", cfg->sizes, MM_MAX_SIZES, &cfg->nsizes, err, len);
    if (rc) return rc;
    rc = mm__split_names("ops", "allreduce,bcast,alltoall,barrier", cfg->ops, MM_MAX_OPS, &cfg->nops, err, len);
    if (rc) return rc;
    mm__argv_json(cfg, argc, argv);
    int seen_clocksync = 0;
    char seen[MM__NOPTIONS] = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0')
            return mm__fail(err, len, "unexpected argument '%s'; options start with -- (see --help)", a);
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
        const mm__option *o = mm__find_option(name, name_len);
        if (!o) return mm__fail(err, len, "unknown option '%.*s'; see mpimeter-bench --help", (int)(name_len + 2), a);
        if (seen[o - mm__options]++)
            return mm__fail(err, len, "--%s: given more than once", o->name);
        const char *value = NULL;
        if (o->arg == MM__ARG_VALUE) {
            if (eq) value = eq + 1;
            else if (i + 1 < argc) value = argv[++i];
            else return mm__fail(err, len, "--%s: missing value (%s)", o->name, o->metavar);
        } else if (eq) {
            return mm__fail(err, len, "--%s takes no value", o->name);
        }
        rc = mm__apply(cfg, o->name, value, &seen_clocksync, err, len);
        if (rc) return rc;
    }
    if (cfg->mode == MM_MODE_HELP || cfg->mode == MM_MODE_LIST_OPS || cfg->mode == MM_MODE_VERSION) return 0;
    if (!cfg->seed_given) {
        /* Drawn from the clock and pid; recorded in meta.json so the order can be replayed. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
        cfg->seed = mm_rand_next(&s) % 1000000000000ULL;
    }
    return mm__validate(cfg, seen_clocksync, err, len);
}

int mm_config_check_nprocs(const mm_config *cfg, int nprocs, char *err, size_t len) {
    int rooted = 0;
    for (int i = 0; i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (op && (op->flags & MM_OP_ROOTED)) rooted = 1;
    }
    if (rooted && cfg->root >= nprocs)
        return mm__fail(err, len, "--root: %d is not a rank of this launch; allowed: 0 to %d", cfg->root, nprocs - 1);
    if (cfg->mode == MM_MODE_SYNC_CHECK && nprocs < 2)
        return mm__fail(err, len, "--sync-check needs at least 2 ranks (got %d)", nprocs);
    return 0;
}

double mm_config_effective_resync_s(const mm_config *cfg, const char *model_kind) {
    if (cfg->resync_given) return cfg->resync_s;
    return strcmp(model_kind, "offset") == 0 ? 1.0 : 0.0;
}

void mm_config_virtual_params(const mm_config *cfg, int rank, mm_virtual_params *vp) {
    memset(vp, 0, sizeof *vp);
    snprintf(vp->base, sizeof vp->base, "%s", cfg->virtual_base);
    if (rank == 0) return;
    /* One independent stream per rank, derived from the seed: reproducible truth for tests. */
    uint64_t state = cfg->seed * 0x9E3779B97F4A7C15ULL + (uint64_t)rank * 0xD1B54A32D192ED03ULL;
    double u = mm_rand_uniform(&state);
    vp->offset_ns = (int64_t)llround((2.0 * u - 1.0) * cfg->virtual_offset_s * 1e9);
    vp->skew_ppm = (mm_rand_next(&state) & 1) ? cfg->virtual_skew_ppm : -cfg->virtual_skew_ppm;
}

void mm_config_print_help(FILE *f) {
    fprintf(f,
            "usage: mpirun -np P mpimeter-bench [options] --out DIR\n"
            "       mpimeter-bench --list-ops | --help | --version\n\n"
            "Measures MPI operations (Hunold & Carpen-Amarie 2016, Algorithm 1 and 2 within one\n"
            "launch) and writes the launch folder DIR (meta.json, raw.csv, sync.csv; see\n"
            "docs/FORMAT.md).\n\noptions (default in brackets):\n");
    for (int i = 0; i < MM__NOPTIONS; i++) {
        const mm__option *o = &mm__options[i];
        char head[64];
        snprintf(head, sizeof head, "--%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
        fprintf(f, "  %-26s %s", head, o->help);
        if (o->default_text && *o->default_text) fprintf(f, " [%s]", o->default_text);
        fputc('\n', f);
    }
    fprintf(f, "\ntimers: %s\nclock syncs: %s\nprocess syncs: %s\ndatatypes: %s\nreduce ops: %s\n",
            mm_timer_names(), mm_clocksync_names(), mm_procsync_names(), mm_datatype_names(),
            mm_reduce_op_names());
    fprintf(f, "\nExit status: 0 success, 2 bad input (nothing written), 1 failure while measuring.\n");
}
