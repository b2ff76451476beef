/* SPDX-License-Identifier: BSD-3-Clause */
/* parse_validate.c — the checks of a parsed configuration that need the registries
 * (operations, clock and process syncs, timers, datatypes, counters, the output folder), run
 * once after every option was read (parse.c). Every refusal is one line naming the option, what
 * was given and what is allowed (exit 2). */
#include "mm_config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mm_adaptive.h"
#include "parse_internal.h"
#include "mm_bench.h"
#include "mm_prng.h"
#include "mm_clocksync.h"
#include "mm_counters.h"
#include "mm_json.h"
#include "mm_ops.h"
#include "mm_output.h"
#include "mm_procsync.h"
#include "mm_timer.h"

/* One name of a registry option, refused with the template when the registry lacks it. */
static mm_status mm__check_name(const char *option, const char *value, char *err, size_t len) {
    const mm_option_spec *o = mm_option_find(option, strlen(option));
    return mm_config_message(err, len, MM_MSG_UNKNOWN_NAME, option, value,
                             mm_registry_names(o->choices), mm_registry_what(o->choices));
}

/* An option given that the mode does not use: refused, never silently ignored. */
mm_status mm__config_check_modes(const mm_config *cfg, const char *seen, char *err, size_t len) {
    size_t n;
    const mm_option_spec *t = mm_options(&n);
    unsigned mode_flag = cfg->run.mode == MM_MODE_SYNC_CHECK ? MM_OPT_F_SYNC_CHECK : MM_OPT_F_BENCH;
    for (size_t i = 0; i < n; i++) {
        if (!seen[i] || (t[i].flags & (mode_flag | MM_OPT_F_INFO))) continue;
        if (cfg->run.mode == MM_MODE_SYNC_CHECK)
            return mm_fail(err, len, "--%s does not apply to --sync-check (it checks clock syncs "
                            "and prints the result)", t[i].name);
        return mm_fail(err, len, "--%s applies only to --sync-check", t[i].name);
    }
    return 0;
}

/* The listing modes skip the launch's checks; --list-algorithms still filters by --ops, where an
 * unknown name would list nothing and exit 0, as if the library offered no algorithm for it. */
mm_status mm__config_check_op_names(const mm_config *cfg, char *err, size_t len) {
    for (int i = 0; i < cfg->nops; i++)
        if (!mm_op_find(cfg->ops[i])) return mm__check_name("ops", cfg->ops[i], err, len);
    return 0;
}

static int mm__op_uses_pair(const mm_op *op) { return op && (op->flags & MM_OP_PAIR); }
static int mm__op_rooted(const mm_op *op) { return op && (op->flags & MM_OP_ROOTED); }
static int mm__op_reduces(const mm_op *op) { return op && (op->flags & MM_OP_REDUCES); }

/* Options that shape only the tests of some operations: given without such an operation in
 * --ops they would be silently ignored, so they are refused; --describe lists the operations each
 * applies to (`mpimeter run --launches auto` leaves one out of a launch that runs none of them). */
typedef struct mm__scope {
    const char *option;
    int (*applies)(const mm_op *op);
    const char *which;
    int (*off)(const mm_config *cfg); /* NULL, or: the value given switches it off, which ignores nothing */
} mm__scope;

static int mm__back_to_back_off(const mm_config *cfg) { return cfg->measure.back_to_back == 0; }

#define MM__NBC_OPS "nonblocking collectives (ibcast, iallreduce, ...; see --list-ops)"
#define MM__NEIGHBOR_OPS "neighborhood collectives (neighbor_allgather, ...; see --list-ops)"
#define MM__RMA_MOVING_OPS "one-sided data movement (rma-put, rma-get, ...; see --list-ops)"

static const mm__scope mm__scoped[] = {
    {"nbc-scheme", mm_op_is_nbc, MM__NBC_OPS, NULL},
    {"nbc-compute-ns", mm_op_is_nbc, MM__NBC_OPS, NULL},
    {"test-interval", mm_op_is_nbc, MM__NBC_OPS, NULL},
    {"pair", mm__op_uses_pair,
     "ping-pongs and one-sided data movement (pingpong-send-recv, rma-put, ...; see --list-ops)", NULL},
    {"cart-dims", mm_op_is_neighbor, MM__NEIGHBOR_OPS, NULL},
    {"graph-file", mm_op_is_neighbor, MM__NEIGHBOR_OPS, NULL},
    {"rma-sync", mm_op_uses_rma_sync, MM__RMA_MOVING_OPS, NULL},
    {"rma-window", mm_op_is_rma, "one-sided ops (rma-put, rma-win-create, ...; see --list-ops)", NULL},
    {"rma-window-bytes", mm_op_uses_rma_sync, MM__RMA_MOVING_OPS, NULL},
    {"rma-burst", mm_op_uses_rma_burst,
     "the one-sided -bw rows (rma-put-bw, rma-get-bw) and contention patterns (rma-one-put-all, ...)", NULL},
    {"workpieces", mm_op_uses_workpieces, "mw-workpieces", NULL},
    {"back-to-back", mm_op_takes_back_to_back, "ping-pongs and blocking collectives (pingpong-send-recv, allreduce, "
                                               "bcast, ...; see --list-ops)", mm__back_to_back_off},
    {"root", mm__op_rooted, "rooted operations (bcast, reduce, gather, mw-send, rma-one-put-all, ...; see --describe's "
                            "operations[].uses_root)", NULL},
    {"reduce-op", mm__op_reduces, "reducing operations (allreduce, reduce, scan, rma-acc, ...; see --describe's "
                                  "operations[].uses_reduce_op)", NULL},
};

static const mm__scope *mm__scope_of(const char *option) {
    for (size_t k = 0; k < sizeof mm__scoped / sizeof mm__scoped[0]; k++)
        if (strcmp(mm__scoped[k].option, option) == 0) return &mm__scoped[k];
    return NULL;
}

int mm_option_op_scoped(const char *option) { return mm__scope_of(option) != NULL; }

int mm_option_applies_to_op(const char *option, const mm_op *op) {
    const mm__scope *scope = mm__scope_of(option);
    return scope && op && scope->applies(op);
}

mm_status mm__config_check_scoped_options(const mm_config *cfg, const char *seen, char *err, size_t len) {
    size_t n;
    const mm_option_spec *table = mm_options(&n);
    for (size_t k = 0; k < sizeof mm__scoped / sizeof mm__scoped[0]; k++) {
        const mm_option_spec *o = mm_option_find(mm__scoped[k].option, strlen(mm__scoped[k].option));
        if (!o || !seen[o - table] || (mm__scoped[k].off && mm__scoped[k].off(cfg))) continue;
        int any = 0;
        for (int i = 0; i < cfg->nops; i++) any |= mm__scoped[k].applies(mm_op_find(cfg->ops[i]));
        if (!any)
            return mm_fail(err, len, "--%s applies only to %s and --ops has none", o->name, mm__scoped[k].which);
    }
    /* the timer the virtual one wraps: without --timer virtual nothing wraps it, as nothing
     * shifts or skews (--virtual-offset-s, --virtual-skew-ppm: mm__validate_timer) */
    const mm_option_spec *base = mm_option_find("virtual-base", 12);
    if (base && seen[base - table] && strcmp(cfg->timing.timer, "virtual") != 0)
        return mm_fail(err, len, "--virtual-base applies only to --timer virtual (given: --timer %s)",
                       cfg->timing.timer);
    /* one topology: --cart-dims (even auto) beside --graph-file would be ignored */
    const mm_option_spec *cart = mm_option_find("cart-dims", 9), *graph = mm_option_find("graph-file", 10);
    if (cart && graph && seen[cart - table] && seen[graph - table])
        return mm_fail(err, len, "--graph-file and --cart-dims: the neighborhood collectives run on one "
                        "topology; allowed: one of the two");
    (void)n;
    return 0;
}

/* Options of a method the launch does not run, refused as --window-us beside another process
 * sync is: the clock sync's own (--nfit ...) when the clock sync is none (given, or the choice of
 * auto for a process sync without a global clock), and the roundtime and window policy's
 * (--bcast-factor ...) under a process sync that neither is nor goes on with them (window goes on
 * with roundtime on a busy machine: docs/ALGORITHMS.md). After mm__config_validate, which
 * resolves --clocksync auto. */
mm_status mm__config_check_method_options(const mm_config *cfg, const char *seen, char *err, size_t len) {
    static const char *const clock_sync_options[] = {"nfit", "pingpongs", "n-nonimproving", "min-rounds",
                                                     "fit-span-s", "fit-target-ns"};
    static const char *const start_options[] = {"bcast-factor", "roundtime-budget-s", "window-growth-max",
                                                "switch-late-fraction"};
    size_t n;
    const mm_option_spec *table = mm_options(&n);
    (void)n;
    int no_clock_sync = cfg->run.mode == MM_MODE_BENCH && strcmp(cfg->clocksync[0], "none") == 0;
    const mm_procsync_vtable *pv = mm_procsync_find(cfg->procsync);
    char why[96]; /* auto picks none only for a process sync without a global clock */
    snprintf(why, sizeof why, pv && !pv->needs_global_clock ? "--clocksync none, or auto with --procsync %s"
                                                            : "--clocksync none", cfg->procsync);
    for (size_t k = 0; no_clock_sync && k < sizeof clock_sync_options / sizeof clock_sync_options[0]; k++) {
        const mm_option_spec *o = mm_option_find(clock_sync_options[k], strlen(clock_sync_options[k]));
        if (o && seen[o - table])
            return mm_fail(err, len, "--%s applies only to a clock sync, and there is none (%s); allowed: "
                           "--%s with a clock sync (--clocksync hca3, ...), or omit it", o->name, why, o->name);
    }
    int rounds = strcmp(cfg->procsync, "window") == 0 || strcmp(cfg->procsync, "roundtime") == 0 ||
                 strcmp(cfg->procsync, "harmonize") == 0;
    for (size_t k = 0; !rounds && k < sizeof start_options / sizeof start_options[0]; k++) {
        const mm_option_spec *o = mm_option_find(start_options[k], strlen(start_options[k]));
        if (o && seen[o - table] && cfg->run.mode == MM_MODE_BENCH)
            return mm_fail(err, len, "--%s applies only to --procsync window, roundtime or harmonize "
                           "(given: --procsync %s)", o->name, cfg->procsync);
    }
    return 0;
}

/* The checks that need the registries; run once after all options are read. */
/* --copy-probe-from DIR: an earlier launch's folder, which holds a meta.json (its copy probe is
 * not read here: the analysis takes each probe's best over a campaign's launches). */
static mm_status mm__check_earlier_launch(const char *option, const char *dir, const mm_config *cfg,
                                          char *err, size_t len) {
    if (strcmp(dir, cfg->out) == 0)
        return mm_fail(err, len, "--%s %s: is this launch's own --out; allowed: the folder of "
                        "an earlier launch", option, dir);
    char meta[MM_PATH_LEN + 16];
    snprintf(meta, sizeof meta, "%s/meta.json", dir);
    struct stat sb;
    if (stat(meta, &sb) != 0 || !S_ISREG(sb.st_mode))
        return mm_fail(err, len, "--%s %s: not a launch folder (no meta.json in it); allowed: "
                        "the folder of an earlier launch on this machine", option, dir);
    return 0;
}

static mm_status mm__check_copy_probe_from(const mm_config *cfg, char *err, size_t len) {
    const char *dir = cfg->probe.copy_probe_from;
    if (cfg->probe.copy_probe_bytes == 0)
        return mm_fail(err, len, "--copy-probe-from %s with --copy-probe-bytes 0: there is no copy probe "
                        "to take from another launch; allowed: one of the two", dir);
    return mm__check_earlier_launch("copy-probe-from", dir, cfg, err, len);
}

/* Is the timer usable by a launch on this machine? 1, or 0 with `why`. A timer that needs MPI
 * (wtime) refuses before MPI_Init, which --validate never calls; the launch calls it before it
 * opens its timer, and mm_timer_open refuses there what still cannot be read. */
static int mm__timer_usable(const mm_timer_vtable *tv, char *why, size_t why_len) {
    int initialized = 0;
    if (!tv->available) return 1;
    if (tv->needs_mpi && MPI_Initialized(&initialized) == MPI_SUCCESS && !initialized) return 1;
    return tv->available(why, why_len) == 0;
}

/* The timer and the virtual timer's options. 0 or MM_E_INPUT. */
static mm_status mm__validate_timer(const mm_config *cfg, char *err, size_t len) {
    char why[512];
    /* timer */
    const mm_timer_vtable *tv = mm_timer_find(cfg->timing.timer);
    if (!tv) return mm__check_name("timer", cfg->timing.timer, err, len);
    if (!mm__timer_usable(tv, why, sizeof why))
        return mm_fail(err, len, "--timer %s: not available on this machine: %s", cfg->timing.timer, why);
    if (strcmp(cfg->timing.timer, "virtual") == 0) {
        const mm_timer_vtable *bv = mm_timer_find(cfg->timing.virtual_base);
        if (!bv || strcmp(cfg->timing.virtual_base, "virtual") == 0)
            return mm_fail(err, len, "--virtual-base: '%s' is not a timer the virtual timer can wrap; allowed: %s (not virtual)",
                            cfg->timing.virtual_base, mm_timer_names());
        if (!mm__timer_usable(bv, why, sizeof why))
            return mm_fail(err, len, "--virtual-base %s: not available on this machine: %s", cfg->timing.virtual_base, why);
    } else if (cfg->timing.virtual_offset_s != 0 || cfg->timing.virtual_skew_ppm != 0) {
        return mm_fail(err, len, "--virtual-offset-s/--virtual-skew-ppm apply only to --timer virtual (given: --timer %s)", cfg->timing.timer);
    }
    return 0;
}

/* The process sync and its options; *pv its vtable. 0 or MM_E_INPUT. */
static mm_status mm__validate_procsync(const mm_config *cfg, const mm_procsync_vtable **pv_out, char *err,
                                       size_t len) {
    /* process sync */
    const mm_procsync_vtable *pv = mm_procsync_find(cfg->procsync);
    *pv_out = pv;
    if (!pv) return mm__check_name("procsync", cfg->procsync, err, len);
    if (cfg->ps.window_given && strcmp(cfg->procsync, "window") != 0)
        return mm_fail(err, len, "--window-us applies only to --procsync window (given: --procsync %s)", cfg->procsync);
    if (cfg->ps.start_tolerance_ns > 0 && !pv->has_planned_start)
        return mm_fail(err, len, "--start-tolerance-ns applies only to process syncs that start "
                        "repetitions at a planned time (window, roundtime, harmonize; given: "
                        "--procsync %s)", cfg->procsync);
    return 0;
}

/* The clock syncs ("auto" resolved here) against the mode and the process sync. 0 or MM_E_INPUT. */
static mm_status mm__validate_clocksync(mm_config *cfg, int seen_clocksync, const mm_procsync_vtable *pv,
                                        char *err, size_t len) {
    /* clock sync: "auto" resolves to the most accurate algorithm registered (a launch on one
     * clock then skips it: bench/launch.c) */
    if (!seen_clocksync || (cfg->nclocksync == 1 && strcmp(cfg->clocksync[0], "auto") == 0)) {
        const char *pick = "none";
        if (pv->needs_global_clock || cfg->run.mode == MM_MODE_SYNC_CHECK)
            pick = mm_clocksync_find("hca3") ? "hca3" : "skampi";
        cfg->cs.clocksync_auto = cfg->run.mode == MM_MODE_BENCH && strcmp(pick, "none") != 0;
        snprintf(cfg->clocksync[0], MM_NAME_LEN, "%s", pick);
        cfg->nclocksync = 1;
    }
    for (int i = 0; i < cfg->nclocksync; i++) {
        if (!mm_clocksync_find(cfg->clocksync[i]))
            return mm__check_name("clocksync", cfg->clocksync[i], err, len);
        for (int j = 0; j < i; j++)
            if (strcmp(cfg->clocksync[i], cfg->clocksync[j]) == 0)
                return mm_fail(err, len, "--clocksync: '%s' is given twice", cfg->clocksync[i]);
    }
    if (cfg->run.mode == MM_MODE_BENCH) {
        if (cfg->nclocksync != 1)
            return mm_fail(err, len, "--clocksync: a list of algorithms is only for --sync-check; give one name");
        /* --clocksync none with a global-clock process sync is allowed (said in meta.json's
         * conditions): on one host the local clocks are one clock. Not when the virtual timer
         * shifts or skews them on purpose: every repetition would start at a wrong time. */
        int virtual_apart = strcmp(cfg->timing.timer, "virtual") == 0 &&
                            (cfg->timing.virtual_offset_s != 0 || cfg->timing.virtual_skew_ppm != 0);
        if (pv->needs_global_clock && strcmp(cfg->clocksync[0], "none") == 0 && virtual_apart)
            return mm_fail(err, len,
                            "--timer virtual with --virtual-offset-s/--virtual-skew-ppm gives each rank its own "
                            "clock, --clocksync none leaves them unsynchronized, and --procsync %s starts every "
                            "repetition at a time on one global clock: every repetition would be invalid; "
                            "allowed: a clock sync (omit --clocksync, or e.g. --clocksync hca3), a process sync "
                            "without a global clock (--procsync barrier, none or loop-barrier), or zero virtual "
                            "offset and skew", cfg->procsync);
    }
    if (cfg->run.mode == MM_MODE_SYNC_CHECK && cfg->plan.seed_given && strcmp(cfg->timing.timer, "virtual") != 0)
        return mm_fail(err, len, "--seed applies to --sync-check only with --timer virtual (it seeds "
                        "the virtual clocks; given: --timer %s)", cfg->timing.timer);
    return 0;
}

/* The operations, the datatype and reduction, the sizes; *type_size the datatype's size and
 * *any_reduce whether an operation reduces. 0 or MM_E_INPUT. */
static mm_status mm__validate_ops(const mm_config *cfg, int *type_size_out, int *any_reduce_out, char *err,
                                  size_t len) {
    char why[512];
    /* operations, datatype, sizes */
    int type_size;
    MPI_Datatype dt;
    if (!mm_datatype_lookup(cfg->measure.datatype, &dt, &type_size))
        return mm__check_name("datatype", cfg->measure.datatype, err, len);
    MPI_Op rop;
    if (!mm_reduce_op_lookup(cfg->measure.reduce_op, &rop))
        return mm__check_name("reduce-op", cfg->measure.reduce_op, err, len);
    if (cfg->inject.error_op[0]) {
        const mm_op *op = mm_op_find(cfg->inject.error_op);
        mm_op_args probe;
        memset(&probe, 0, sizeof probe);
        if (!op) return mm__check_name("inject-error", cfg->inject.error_op, err, len);
        if (mm_op_inject_error(op, &probe) != 0)
            return mm_fail(err, len, "--inject-error %s: this operation takes neither a root nor "
                            "a reduction, so no error can be injected", op->name);
    }
    if (cfg->inject.fault_op[0] && !mm_op_find(cfg->inject.fault_op))
        return mm_config_message(err, len, MM_MSG_UNKNOWN_NAME, "inject-fault", cfg->inject.fault_op,
                                 mm_registry_names("operations"), mm_registry_what("operations"));
    int any_reduce = 0;
    for (int i = 0; i < cfg->nops; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        if (!op) return mm__check_name("ops", cfg->ops[i], err, len);
        if (!mm_op_available(op, why, sizeof why))
            return mm_fail(err, len, "--ops %s: not available: %s", op->name, why);
        for (int j = 0; j < i; j++)
            if (strcmp(cfg->ops[i], cfg->ops[j]) == 0)
                return mm_fail(err, len, "--ops: '%s' is given twice", cfg->ops[i]);
        if (op->flags & MM_OP_REDUCES) any_reduce = 1;
        if (op->flags & MM_OP_SIZE_UNUSED) continue;
        for (int s = 0; s < cfg->nsizes; s++) {
            char why_size[256];
            if (mm_op_check_size(op, cfg->sizes[s], type_size, why_size, sizeof why_size) != 0)
                return cfg->adaptive.sizes_auto
                           ? mm_fail(err, len, "--sizes auto:%" PRId64 ":%" PRId64 ": %s (operation %s, --datatype %s)",
                                      cfg->adaptive.sizes_min, cfg->adaptive.sizes_max, why_size, op->name, cfg->measure.datatype)
                           : mm_fail(err, len, "--sizes: %s (operation %s, --datatype %s)", why_size, op->name, cfg->measure.datatype);
        }
    }
    *type_size_out = type_size;
    *any_reduce_out = any_reduce;
    return 0;
}

mm_status mm__config_validate(mm_config *cfg, int seen_clocksync, char *err, size_t len) {
    char why[512];
    const mm_procsync_vtable *pv = NULL;
    int type_size = 0, any_reduce = 0;
    int rc = mm__validate_timer(cfg, err, len);
    if (rc == 0) rc = mm__validate_procsync(cfg, &pv, err, len);
    if (rc == 0) rc = mm__validate_clocksync(cfg, seen_clocksync, pv, err, len);
    if (rc == 0) rc = mm__validate_ops(cfg, &type_size, &any_reduce, err, len);
    if (rc) return rc;
    int rc_rma = mm__config_check_rma(cfg, type_size, err, len);
    if (rc_rma) return rc_rma;
    int rc_graph = mm__config_read_graph(cfg, err, len);
    if (rc_graph) return rc_graph;
    int rc_space = mm__config_check_space(cfg, err, len);
    if (rc_space) return rc_space;
    if (any_reduce && mm_reduce_op_check(cfg->measure.reduce_op, cfg->measure.datatype, why, sizeof why) != 0)
        return mm_fail(err, len, "--reduce-op %s with --datatype %s: %s", cfg->measure.reduce_op, cfg->measure.datatype, why);
    for (int s = 0; s < cfg->nsizes; s++)
        for (int t = 0; t < s; t++)
            if (cfg->sizes[s] == cfg->sizes[t])
                return mm_fail(err, len, "--sizes: %" PRId64 " is given twice", cfg->sizes[s]);
    /* hardware counters: one source of them; PAPI in the build, the events known, counters on
     * this machine; LIKWID in the build (whether each rank runs under likwid-perfctr is checked
     * at launch: mpimeter run validates the options without it) */
    if (cfg->run.mode == MM_MODE_BENCH && cfg->counters.likwid_group[0] && cfg->counters.papi_events[0])
        return mm_fail(err, len, "--likwid with --papi: both program the CPU's counters; allowed: "
                       "one of the two");
    if (cfg->run.mode == MM_MODE_BENCH && cfg->counters.papi_events[0] &&
        mm_papi_check(cfg->counters.papi_events, err, len) != 0)
        return MM_E_INPUT;
    if (cfg->run.mode == MM_MODE_BENCH && cfg->counters.likwid_group[0] && !mm_likwid_built())
        return mm_likwid_check(cfg->counters.likwid_group, err, len);
    if (cfg->probe.copy_probe_from[0] && mm__check_copy_probe_from(cfg, err, len) != 0) return MM_E_INPUT;
    /* --mpit-from DIR: an earlier launch's folder; its mpi.mpi_t is not read here (the
     * analysis reads every launch's meta.json) */
    if (cfg->probe.mpit_from[0] && mm__check_earlier_launch("mpit-from", cfg->probe.mpit_from, cfg, err, len) != 0)
        return MM_E_INPUT;
    /* output: a launch writes a folder; --validate only checks the options */
    if (cfg->run.mode == MM_MODE_BENCH && cfg->run.validate_nprocs == 0 && !cfg->output.quick) {
        if (!cfg->out[0]) return mm_fail(err, len, "--out: missing; give the launch folder to write (e.g. --out results/m1)");
        if (mm_outdir_check(cfg->out, cfg->output.force, err, len) != 0) return MM_E_INPUT;
    }
    if (cfg->run.validate_nprocs > 0) return mm_config_check_nprocs(cfg, cfg->run.validate_nprocs, err, len);
    return 0;
}

mm_status mm_config_check_nprocs(const mm_config *cfg, int nprocs, char *err, size_t len) {
    int space = mm__config_check_space_nprocs(cfg, nprocs, err, len);
    if (space) return space;
    int sizes[MM_MAX_LIST], nsizes = mm_config_comm_sizes(cfg, nprocs, sizes);
    for (int i = 0; i < cfg->nops && cfg->run.mode == MM_MODE_BENCH; i++) {
        const mm_op *op = mm_op_find(cfg->ops[i]);
        char why[256];
        for (int k = 0; op && k < nsizes; k++)
            if (mm_op_check_nprocs(op, sizes[k], why, sizeof why) != 0)
                return sizes[k] == nprocs ? mm_fail(err, len, "--ops: %s", why)
                                          : mm_fail(err, len, "--nprocs %d with --ops %s: %s", sizes[k],
                                                    op->name, why);
    }
    if (cfg->plan.pair_given && (cfg->plan.pair[0] >= nprocs || cfg->plan.pair[1] >= nprocs)) {
        int bad = cfg->plan.pair[0] >= nprocs ? cfg->plan.pair[0] : cfg->plan.pair[1];
        return mm_fail(err, len, "--pair: %d,%d names rank %d, which is not a rank of this launch; "
                        "allowed: two distinct ranks from 0 to %d, or auto", cfg->plan.pair[0],
                        cfg->plan.pair[1], bad, nprocs - 1);
    }

    int cart_err = mm__config_check_cart(cfg, nprocs, err, len);
    if (cart_err) return cart_err;
    for (int k = 0; k < nsizes && cfg->run.mode == MM_MODE_BENCH; k++) {
        int graph_err = mm__config_check_graph(cfg, sizes[k], err, len);
        if (graph_err) return graph_err;
    }
    if (cfg->run.mode == MM_MODE_SYNC_CHECK && nprocs < 2)
        return mm_fail(err, len, "--sync-check needs at least 2 ranks (got %d)", nprocs);
    return 0;
}
