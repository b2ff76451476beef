/* SPDX-License-Identifier: BSD-3-Clause */
/* test_config.c — option parsing and validation (no MPI_Init needed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mm_bench.h"
#include "mm_check.h"
#include "mm_error.h"
#include "mm_config.h"
#include "../../src/app/app_output.h"

static mm_config cfg;
static char err[2048];

static int parse(int argc, const char **argv) {
    err[0] = '\0';
    return mm_config_parse(&cfg, argc, (char **)argv, err, sizeof err);
}

static void test_defaults(void) {
    const char *argv[] = {"mpimeter-bench", "--out", "/tmp/mm_unit_cfg/none-yet"};
    CHECK_EQ_INT(parse(3, argv), 0);
    CHECK_EQ_INT(cfg.nrep, 300);
    CHECK_EQ_INT(cfg.measure.warmup, 10);
    CHECK_EQ_INT(cfg.nops, 4);
    CHECK_STR(cfg.ops[0], "allreduce");
    CHECK_EQ_INT(cfg.nsizes, 6); /* 8:65536:x8,65536 = 8, 64, 512, 4096, 32768, 65536 */
    CHECK_EQ_INT(cfg.sizes[4], 32768);
    CHECK_EQ_INT(cfg.sizes[5], 65536);
    CHECK_STR(cfg.timing.timer, "monotonic");
    CHECK_STR(cfg.procsync, "window");
    CHECK(strcmp(cfg.clocksync[0], "auto") != 0); /* resolved */
    CHECK_EQ_INT(cfg.run.mode, MM_MODE_BENCH);
    CHECK(cfg.output.argv_joined[0] == '[');
    /* the option table's defaults (options.c), parsed into the starting configuration */
    CHECK_EQ_INT(cfg.adaptive.nrep_rule, MM_NREP_FIXED);
    CHECK_EQ_INT(cfg.adaptive.nrep_min, 30);
    CHECK_EQ_INT(cfg.adaptive.nrep_max, 3000);
    CHECK_EQ_INT(cfg.adaptive.nrep_every, 10);
    CHECK(cfg.adaptive.precision == 0.02 && cfg.adaptive.nrep_confidence == 0.95 && cfg.adaptive.nrep_budget_s == 10.0);
    CHECK(cfg.adaptive.sizes_precision == 0.05);
    CHECK_EQ_INT(cfg.adaptive.sizes_budget, 16);
    CHECK_EQ_INT(cfg.adaptive.sizes_factor, 2);
    CHECK_STR(cfg.measure.datatype, "int");
    CHECK_STR(cfg.measure.reduce_op, "sum");
    CHECK_STR(cfg.timing.virtual_base, "monotonic");
    CHECK(cfg.ps.roundtime_budget_s == 1.0 && cfg.ps.bcast_factor == 2.0);
    CHECK(cfg.probe.copy_probe_bytes == 32 << 20);
    CHECK_EQ_INT(cfg.check.ncheck, 5);
    CHECK(cfg.check.check_at_s[0] == 0 && cfg.check.check_at_s[3] == 5 && cfg.check.check_at_s[4] == 10);
    CHECK_EQ_INT(cfg.cs.params.nfit, 0); /* the algorithm's default, resolved by the sync */
    CHECK_EQ_INT(cfg.cs.params.min_rounds, 0);
    /* every default of a defaulted option parses as given (nothing left at 0 by a failure) */
    mm_config fresh;
    mm_config_defaults(&fresh);
    CHECK_EQ_INT(fresh.nrep, 300);
    CHECK_EQ_INT(fresh.measure.warmup, 10);
    CHECK_STR(fresh.timing.timer, "monotonic");
    CHECK_STR(fresh.procsync, "window");
}

static void test_sizes(void) {
    int64_t sizes[MM_MAX_SIZES];
    int n;
    CHECK_EQ_INT(mm_parse_sizes("8:1048576:x2", sizes, MM_MAX_SIZES, &n, err, sizeof err), 0);
    CHECK_EQ_INT(n, 18);
    CHECK_EQ_INT(sizes[17], 1048576);
    CHECK_EQ_INT(mm_parse_sizes("0,8,64:4096:x4", sizes, MM_MAX_SIZES, &n, err, sizeof err), 0);
    CHECK_EQ_INT(n, 6);
    CHECK_EQ_INT(sizes[0], 0);
    CHECK_EQ_INT(sizes[5], 4096);
    CHECK_EQ_INT(mm_parse_sizes("8,x", sizes, MM_MAX_SIZES, &n, err, sizeof err), MM_E_INPUT);
    CHECK(strstr(err, "'x'") != NULL);
    CHECK(mm_parse_sizes("8:4:x2", sizes, MM_MAX_SIZES, &n, err, sizeof err) != 0);
    CHECK(mm_parse_sizes("8:64:x1", sizes, MM_MAX_SIZES, &n, err, sizeof err) != 0);
    CHECK(mm_parse_sizes("8:64", sizes, MM_MAX_SIZES, &n, err, sizeof err) != 0);
    CHECK(mm_parse_sizes("-8", sizes, MM_MAX_SIZES, &n, err, sizeof err) != 0);
    CHECK(mm_parse_sizes("", sizes, MM_MAX_SIZES, &n, err, sizeof err) != 0);
}

static void expect_error(int argc, const char **argv, const char *needle) {
    int rc = parse(argc, argv);
    CHECK_EQ_INT(rc, MM_E_INPUT);
    if (!strstr(err, needle)) {
        fprintf(stderr, "message '%s' lacks '%s'\n", err, needle);
        CHECK(0);
    }
}

static void test_errors(void) {
    const char *o = "/tmp/mm_unit_cfg/none-yet";
    { const char *a[] = {"b", "--ops", "allreduce,nosuchop", "--out", o}; expect_error(5, a, "nosuchop"); }
    { const char *a[] = {"b", "--nrep", "0", "--out", o}; expect_error(5, a, "--nrep"); }
    { const char *a[] = {"b", "--nrep", "12x", "--out", o}; expect_error(5, a, "--nrep"); }
    { const char *a[] = {"b", "--frob", "--out", o}; expect_error(4, a, "--frob"); }
    { const char *a[] = {"b", "--nrep"}; expect_error(2, a, "missing value"); }
    { const char *a[] = {"b", "--nrep", "5", "--nrep", "6", "--out", o}; expect_error(7, a, "more than once"); }
    { const char *a[] = {"b", "--timer", "sundial", "--out", o}; expect_error(5, a, "monotonic"); }
    { const char *a[] = {"b", "--ops", "allreduce", "--datatype", "int", "--sizes", "10", "--out", o};
      expect_error(9, a, "multiple"); }
    { const char *a[] = {"b", "--datatype", "quaternion", "--out", o}; expect_error(5, a, "--datatype"); }
    { const char *a[] = {"b", "--reduce-op", "median", "--out", o}; expect_error(5, a, "--reduce-op"); }
    { const char *a[] = {"b", "--ops", "allreduce", "--datatype", "double", "--reduce-op", "bor", "--out", o};
      expect_error(9, a, "bor"); }
    { const char *a[] = {"b", "--procsync", "telepathy", "--out", o}; expect_error(5, a, "window"); }
    { const char *a[] = {"b", "--clocksync", "sundial", "--out", o}; expect_error(5, a, "--clocksync"); }
    { const char *a[] = {"b", "--raw", "partial", "--out", o}; expect_error(5, a, "full, reduced"); }
    { const char *a[] = {"b", "--window-us", "50", "--procsync", "barrier", "--out", o}; expect_error(7, a, "--window-us"); }
    { const char *a[] = {"b", "--virtual-skew-ppm", "5", "--out", o}; expect_error(5, a, "virtual"); }
    /* an unknown base was accepted and ignored without --timer virtual */
    { const char *a[] = {"b", "--virtual-base", "sundial", "--out", o};
      expect_error(5, a, "--virtual-base applies only to --timer virtual"); }
    { const char *a[] = {"b", "--virtual-base", "tsc", "--out", o};
      expect_error(5, a, "--virtual-base applies only to --timer virtual"); }
    /* --root and --reduce-op shape only rooted and reducing operations: without one in --ops they
     * were accepted and ignored */
    { const char *a[] = {"b", "--ops", "allreduce", "--root", "1", "--out", o};
      expect_error(7, a, "--root applies only to rooted operations"); }
    { const char *a[] = {"b", "--ops", "bcast", "--reduce-op", "max", "--out", o};
      expect_error(7, a, "--reduce-op applies only to reducing operations"); }
    { const char *a[] = {"b", "--ops", "allreduce,bcast", "--root", "1", "--reduce-op", "max", "--out", o};
      CHECK_EQ_INT(parse(9, a), 0); }
    /* --back-to-back times ping-pongs and blocking collectives only: with none it was ignored */
    { const char *a[] = {"b", "--ops", "delay,ibcast", "--back-to-back", "10", "--out", o};
      expect_error(7, a, "--back-to-back applies only to ping-pongs and blocking collectives"); }
    { const char *a[] = {"b", "--ops", "delay,pingpong-send-recv", "--back-to-back", "10", "--out", o};
      CHECK_EQ_INT(parse(7, a), 0); }
    { const char *a[] = {"b", "--ops", "delay,ibcast", "--back-to-back", "0", "--out", o}; /* off: nothing ignored */
      CHECK_EQ_INT(parse(7, a), 0); }
    { const char *a[] = {"b", "stray"}; expect_error(2, a, "stray"); }
    { const char *a[] = {"b", "--ops", "bcast", "--force"}; expect_error(4, a, "--force: only with --out"); }
    { const char *a[] = {"b", "--order", "random", "--out", o}; expect_error(5, a, "shuffled, ascending"); }
}

/* Without --out, the quick table (app/quick.c): ascending order and no copy probe unless given;
 * the folder itself is made by main on rank 0. With --out, neither changes. */
static void test_quick_without_out(void) {
    { const char *a[] = {"b", "--ops", "bcast"};
      CHECK_EQ_INT(parse(3, a), 0);
      CHECK_EQ_INT(cfg.output.quick, 1);
      CHECK_EQ_INT(cfg.plan.order_ascending, 1);
      CHECK_EQ_INT(cfg.probe.copy_probe_bytes, 0);
      CHECK_STR(cfg.procsync, "barrier");
      CHECK_STR(cfg.out, ""); }
    { const char *a[] = {"b", "--order", "shuffled", "--copy-probe-bytes", "4096", "--procsync", "window"};
      CHECK_EQ_INT(parse(7, a), 0);
      CHECK_STR(cfg.procsync, "window");
      CHECK_EQ_INT(cfg.output.quick, 1);
      CHECK_EQ_INT(cfg.plan.order_ascending, 0);
      CHECK_EQ_INT(cfg.probe.copy_probe_bytes, 4096); }
    { const char *a[] = {"b", "--out", "/tmp/mm_unit_cfg/none-yet"};
      CHECK_EQ_INT(parse(3, a), 0);
      CHECK_EQ_INT(cfg.output.quick, 0);
      CHECK_EQ_INT(cfg.plan.order_ascending, 0);
      CHECK_EQ_INT(cfg.probe.copy_probe_bytes, 33554432);
      CHECK_STR(cfg.procsync, "window"); }
    { const char *a[] = {"b", "--order", "ascending", "--out", "/tmp/mm_unit_cfg/none-yet"};
      CHECK_EQ_INT(parse(5, a), 0);
      CHECK_EQ_INT(cfg.output.quick, 0);
      CHECK_EQ_INT(cfg.plan.order_ascending, 1); }
}

/* Without --out, a launch that ends in error removes the folder made for it when empty, and
 * names it when it holds what the launch wrote (the user never chose it). */
static void test_quick_folder_kept_is_named(void) {
    const char *a[] = {"b", "--ops", "bcast"};
    CHECK_EQ_INT(parse(3, a), 0);
    mkdir("/tmp/mm_unit_cfg", 0755);
    char said[512];
    for (int holds_a_file = 0; holds_a_file <= 1; holds_a_file++) {
        snprintf(cfg.out, sizeof cfg.out, "/tmp/mm_unit_cfg/quick-XXXXXX");
        CHECK(mkdtemp(cfg.out) != NULL);
        char file[MM_PATH_LEN + 16];
        snprintf(file, sizeof file, "%s/meta.json", cfg.out);
        if (holds_a_file) { FILE *f = fopen(file, "w"); CHECK(f != NULL); if (f) fclose(f); }
        FILE *say = tmpfile();
        CHECK(say != NULL);
        if (!say) return;
        mm_quick_remove_unused_folder(&cfg, 1, say); /* another rank: nothing */
        CHECK_EQ_INT(access(cfg.out, F_OK), 0);
        mm_quick_remove_unused_folder(&cfg, 0, say);
        rewind(say);
        size_t n = fread(said, 1, sizeof said - 1, say);
        said[n] = '\0';
        fclose(say);
        CHECK_EQ_INT(access(cfg.out, F_OK) == 0, holds_a_file);
        CHECK_EQ_INT(strstr(said, cfg.out) != NULL, holds_a_file);
        if (holds_a_file) { unlink(file); rmdir(cfg.out); }
    }
}

static void test_out_not_empty(void) {
    mkdir("/tmp/mm_unit_cfg", 0755);
    mkdir("/tmp/mm_unit_cfg/full", 0755);
    FILE *f = fopen("/tmp/mm_unit_cfg/full/x", "w");
    if (f) fclose(f);
    const char *a[] = {"b", "--out", "/tmp/mm_unit_cfg/full"};
    expect_error(3, a, "--out");
    const char *b[] = {"b", "--out", "/tmp/mm_unit_cfg/full", "--force"};
    CHECK_EQ_INT(parse(4, b), 0);
    unlink("/tmp/mm_unit_cfg/full/x");
    rmdir("/tmp/mm_unit_cfg/full");
}

static void test_values(void) {
    const char *a[] = {"b", "--ops=bcast,delay", "--sizes", "16", "--seed", "99", "--raw", "reduced",
                       "--window-us", "250.5", "--cold-cache", "1048576", "--out", "/tmp/mm_unit_cfg/n"};
    CHECK_EQ_INT(parse(14, a), 0);
    CHECK_EQ_INT(cfg.nops, 2);
    CHECK_STR(cfg.ops[1], "delay");
    CHECK_EQ_INT(cfg.plan.seed, 99);
    CHECK_EQ_INT(cfg.plan.seed_given, 1);
    CHECK_EQ_INT(cfg.output.raw_reduced, 1);
    CHECK_NEAR(cfg.ps.window_us, 250.5, 1e-12);
    CHECK_EQ_INT(cfg.measure.cold_cache_bytes, 1048576);
}

static void test_virtual_params(void) {
    const char *a[] = {"b", "--timer", "virtual", "--virtual-offset-s", "1", "--virtual-skew-ppm",
                       "100", "--seed", "5", "--out", "/tmp/mm_unit_cfg/n"};
    CHECK_EQ_INT(parse(11, a), 0);
    mm_virtual_params v0, v1, v1b;
    mm_config_virtual_params(&cfg, 0, &v0);
    CHECK_EQ_INT(v0.offset_ns, 0);
    CHECK_NEAR(v0.skew_ppm, 0, 0);
    CHECK_STR(v0.base, "monotonic");
    int plus = 0, minus = 0;
    for (int r = 1; r < 64; r++) {
        mm_config_virtual_params(&cfg, r, &v1);
        mm_config_virtual_params(&cfg, r, &v1b);
        CHECK_EQ_INT(v1.offset_ns, v1b.offset_ns); /* deterministic */
        CHECK(v1.offset_ns >= -1000000000LL && v1.offset_ns <= 1000000000LL);
        CHECK(v1.skew_ppm == 100.0 || v1.skew_ppm == -100.0);
        plus += v1.skew_ppm > 0;
        minus += v1.skew_ppm < 0;
    }
    CHECK(plus > 10 && minus > 10);
}

/* Every comma-separated list option refuses an empty item, naming the option. */
static void test_empty_list_items(void) {
    const char *o = "/tmp/mm_unit_cfg/none-yet";
    const char *bad_sizes[] = {"8,,16", ",8", "8,", ",", "8:64:x2,,128"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof bad_sizes[0]; i++) {
        const char *a[] = {"b", "--sizes", bad_sizes[i], "--out", o};
        expect_error(5, a, "--sizes: empty item");
    }
    { const char *a[] = {"b", "--ops", "bcast,,allreduce", "--out", o}; expect_error(5, a, "--ops: empty item"); }
    { const char *a[] = {"b", "--ops", "bcast,", "--out", o}; expect_error(5, a, "--ops: empty item"); }
    { const char *a[] = {"b", "--sync-check", "--clocksync", "skampi,,none"}; expect_error(4, a, "--clocksync: empty item"); }
    { const char *a[] = {"b", "--sync-check", "--check-at", "0,,1"}; expect_error(4, a, "--check-at: empty item"); }
    /* the same lists without the empty item are fine */
    const char *ok[] = {"b", "--sizes", "8,16", "--ops", "bcast,allreduce", "--out", o};
    CHECK_EQ_INT(parse(7, ok), 0);
    CHECK_EQ_INT(cfg.nsizes, 2);
}

static void test_window_us(void) {
    const char *o = "/tmp/mm_unit_cfg/none-yet";
    /* auto, as --help shows for the default, is accepted and means the pilot-derived window */
    const char *a[] = {"b", "--window-us", "auto", "--out", o};
    CHECK_EQ_INT(parse(5, a), 0);
    CHECK_NEAR(cfg.ps.window_us, 0, 0);
    CHECK_EQ_INT(cfg.ps.window_given, 1);
    const char *d[] = {"b", "--out", o};
    CHECK_EQ_INT(parse(3, d), 0);
    CHECK_NEAR(cfg.ps.window_us, 0, 0);
    CHECK_EQ_INT(cfg.ps.window_given, 0);
    const char *n[] = {"b", "--window-us=75", "--out", o};
    CHECK_EQ_INT(parse(4, n), 0);
    CHECK_NEAR(cfg.ps.window_us, 75, 0);
    /* anything else names what is allowed; auto too applies only to the window sync */
    { const char *b[] = {"b", "--window-us", "0", "--out", o}; expect_error(5, b, "auto"); }
    { const char *b[] = {"b", "--window-us", "Auto", "--out", o}; expect_error(5, b, "--window-us"); }
    { const char *b[] = {"b", "--window-us", "-5", "--out", o}; expect_error(5, b, "from 0.001"); }
    /* below the nanosecond the clocks count: nothing to wait for */
    { const char *b[] = {"b", "--window-us", "1e-300", "--out", o};
      expect_error(5, b, "--window-us: 1e-300 is out of range; allowed: a number from 0.001 to 1000000000, or auto"); }
    { const char *b[] = {"b", "--window-us", "0.0009", "--out", o}; expect_error(5, b, "out of range"); }
    { const char *b[] = {"b", "--window-us", "0.001", "--out", o}; CHECK_EQ_INT(parse(5, b), 0); }
    { const char *b[] = {"b", "--window-us", "auto", "--procsync", "barrier", "--out", o};
      expect_error(7, b, "applies only to --procsync window"); }
}

/* A virtual timer that shifts or skews the ranks' clocks cannot go with --clocksync none under
 * a process sync that starts repetitions on a global clock. */
static void test_virtual_clocks_need_a_sync(void) {
    const char *o = "/tmp/mm_unit_cfg/none-yet";
    const char *global_syncs[] = {"window", "roundtime", "harmonize"};
    for (size_t i = 0; i < sizeof global_syncs / sizeof global_syncs[0]; i++) {
        const char *a[] = {"b", "--timer", "virtual", "--virtual-offset-s", "0.001", "--clocksync", "none",
                           "--procsync", global_syncs[i], "--out", o};
        expect_error(11, a, "--clocksync none");
        CHECK(strstr(err, "--timer virtual") && strstr(err, global_syncs[i]) && strstr(err, "allowed"));
        const char *b[] = {"b", "--timer", "virtual", "--virtual-skew-ppm", "50", "--clocksync", "none",
                           "--procsync", global_syncs[i], "--out", o};
        expect_error(11, b, "--virtual-skew-ppm");
    }
    /* allowed: a clock sync, a process sync without a global clock, or clocks not set apart */
    const char *with_sync[] = {"b", "--timer", "virtual", "--virtual-offset-s", "1", "--clocksync", "hca3",
                               "--out", o};
    CHECK_EQ_INT(parse(9, with_sync), 0);
    const char *auto_sync[] = {"b", "--timer", "virtual", "--virtual-offset-s", "1", "--out", o};
    CHECK_EQ_INT(parse(7, auto_sync), 0);
    const char *barrier[] = {"b", "--timer", "virtual", "--virtual-offset-s", "1", "--clocksync", "none",
                             "--procsync", "barrier", "--out", o};
    CHECK_EQ_INT(parse(11, barrier), 0);
    const char *together[] = {"b", "--timer", "virtual", "--clocksync", "none", "--out", o};
    CHECK_EQ_INT(parse(7, together), 0);
}

static void test_sync_check_mode(void) {
    const char *a[] = {"b", "--sync-check", "--clocksync", "skampi,none", "--check-at", "0,0.5,2", "--json"};
    CHECK_EQ_INT(parse(7, a), 0);
    CHECK_EQ_INT(cfg.run.mode, MM_MODE_SYNC_CHECK);
    CHECK_EQ_INT(cfg.nclocksync, 2);
    CHECK_EQ_INT(cfg.check.ncheck, 3);
    CHECK_NEAR(cfg.check.check_at_s[1], 0.5, 0);
    const char *b[] = {"b", "--clocksync", "skampi,none", "--out", "/tmp/mm_unit_cfg/n"};
    expect_error(5, b, "--sync-check");
    const char *c[] = {"b", "--sync-check", "--check-at", "2,1"};
    expect_error(4, c, "--check-at");
}

/* A method's options where the launch does not run it were accepted and ignored: the clock
 * sync's with none (given, or auto's choice beside a barrier), roundtime's and the window
 * policy's with a process sync that never goes on with them. With the method they parse. */
static void test_method_options_need_their_method(void) {
    const char *o = "/tmp/mm_unit_cfg/none-yet";
    { const char *a[] = {"b", "--procsync", "barrier", "--nfit", "4", "--out", o};
      expect_error(7, a, "--nfit applies only to a clock sync, and there is none (--clocksync none, or auto with --procsync barrier)"); }
    { const char *a[] = {"b", "--clocksync", "none", "--min-rounds", "4", "--out", o};
      expect_error(7, a, "--min-rounds applies only to a clock sync, and there is none (--clocksync none)"); }
    { const char *a[] = {"b", "--procsync", "none", "--bcast-factor", "3", "--out", o};
      expect_error(7, a, "--bcast-factor applies only to --procsync window, roundtime or harmonize"); }
    { const char *a[] = {"b", "--procsync", "barrier", "--switch-late-fraction", "0.3", "--out", o};
      expect_error(7, a, "--switch-late-fraction applies only to --procsync window"); }
    { const char *a[] = {"b", "--procsync", "barrier", "--clocksync", "hca3", "--nfit", "4", "--out", o};
      CHECK_EQ_INT(parse(9, a), 0); }
    { const char *a[] = {"b", "--procsync", "roundtime", "--bcast-factor", "3", "--fit-span-s", "0.1", "--out", o};
      CHECK_EQ_INT(parse(9, a), 0); }
    { const char *a[] = {"b", "--sync-check", "--clocksync", "none,hca3", "--nfit", "4"};
      CHECK_EQ_INT(parse(6, a), 0); }
}

/* --list-algorithms --ops LIST filters the listing: a name that is no operation is refused (it
 * listed nothing, exit 0, as if the library had no algorithm for it); known names parse. */
static void test_list_algorithms_ops(void) {
    const char *a[] = {"b", "--list-algorithms", "--ops", "allreduce,bcast"};
    CHECK_EQ_INT(parse(4, a), 0);
    CHECK_EQ_INT(cfg.run.mode, MM_MODE_LIST_ALGORITHMS);
    CHECK_EQ_INT(cfg.nops, 2);
    const char *b[] = {"b", "--list-algorithms", "--ops", "allreduce,alreduce"};
    expect_error(4, b, "--ops: unknown operation 'alreduce'; allowed: allgather");
}

/* --nrep auto[:RULE] and --sizes auto:MIN:MAX: what they set, and their bad input. */
static void test_adaptive_options(void) {
    const char *out[] = {"--out", "/tmp/mm_unit_cfg/none-yet"};
    const char *a1[] = {"b", "--nrep", "auto", "--nrep-max", "500", out[0], out[1]};
    CHECK_EQ_INT(parse(7, a1), 0);
    CHECK_EQ_INT(cfg.adaptive.nrep_rule, MM_NREP_CI); /* the default rule */
    CHECK_EQ_INT(cfg.nrep, 500);             /* the most a test records: what is allocated */
    CHECK_EQ_INT(cfg.adaptive.nrep_min, 30);
    CHECK_NEAR(cfg.adaptive.precision, 0.02, 0);
    const char *a2[] = {"b", "--nrep=auto:rse", "--precision", "0.005", "--nrep-every", "5", out[0], out[1]};
    CHECK_EQ_INT(parse(8, a2), 0);
    CHECK_EQ_INT(cfg.adaptive.nrep_rule, MM_NREP_RSE);
    CHECK_EQ_INT(cfg.adaptive.nrep_every, 5);
    CHECK_NEAR(cfg.adaptive.precision, 0.005, 0);
    const char *a3[] = {"b", "--nrep", "42", out[0], out[1]};
    CHECK_EQ_INT(parse(5, a3), 0);
    CHECK_EQ_INT(cfg.adaptive.nrep_rule, MM_NREP_FIXED);
    CHECK_EQ_INT(cfg.nrep, 42);

    const char *twice[] = {"b", "--nrep", "auto", "--nrep", "300", out[0], out[1]};
    expect_error(7, twice, "--nrep: given more than once ('auto', then '300')");
    const char *fixed_max[] = {"b", "--nrep", "300", "--nrep-max", "1000", out[0], out[1]};
    expect_error(7, fixed_max, "--nrep-max 1000 applies only to --nrep auto[:RULE], but --nrep is 300");
    const char *default_fixed[] = {"b", "--precision", "0.01", out[0], out[1]};
    expect_error(5, default_fixed, "--precision 0.01 applies only to --nrep auto");
    const char *zero[] = {"b", "--nrep", "auto", "--precision", "0", out[0], out[1]};
    expect_error(7, zero, "--precision: 0 is out of range; allowed: a number from 1e-06, below 1");
    const char *one[] = {"b", "--nrep", "auto", "--precision", "1", out[0], out[1]};
    expect_error(7, one, "--precision: 1 is out of range");
    const char *above[] = {"b", "--nrep", "auto", "--precision", "1.5", out[0], out[1]};
    expect_error(7, above, "--precision: 1.5 is out of range");
    const char *minmax[] = {"b", "--nrep", "auto", "--nrep-min", "500", "--nrep-max", "100", out[0], out[1]};
    expect_error(9, minmax, "--nrep-min 500 is above --nrep-max 100");
    const char *rule[] = {"b", "--nrep", "auto:median", out[0], out[1]};
    expect_error(5, rule, "--nrep: 'auto:median' is not a whole number; allowed: a whole number from 1 to "
                          "100000000, or auto, auto:ci, auto:rse");
    const char *conf[] = {"b", "--nrep", "auto:rse", "--nrep-confidence", "0.9", out[0], out[1]};
    expect_error(7, conf, "--nrep-confidence 0.9 applies only to --nrep auto:ci");

    const char *s1[] = {"b", "--sizes", "auto:8:1048576", out[0], out[1]};
    CHECK_EQ_INT(parse(5, s1), 0);
    CHECK_EQ_INT(cfg.adaptive.sizes_auto, 1);
    CHECK_EQ_INT(cfg.nsizes, 18); /* 8, 16, ..., 1048576 */
    CHECK_EQ_INT(cfg.sizes[17], 1048576);
    const char *s2[] = {"b", "--sizes", "auto:8:1000:x4", out[0], out[1]};
    CHECK_EQ_INT(parse(5, s2), 0);
    CHECK_EQ_INT(cfg.nsizes, 5); /* 8, 32, 128, 512 below MAX, then MAX */
    CHECK_EQ_INT(cfg.sizes[3], 512);
    CHECK_EQ_INT(cfg.sizes[4], 1000);
    CHECK_EQ_INT(cfg.adaptive.sizes_factor, 4);
    const char *down[] = {"b", "--sizes", "auto:1024:8", out[0], out[1]};
    expect_error(5, down, "--sizes auto:1024:8: the bounds must increase");
    const char *same[] = {"b", "--sizes", "auto:64:64", out[0], out[1]};
    expect_error(5, same, "--sizes auto:64:64: the bounds must increase");
    const char *half[] = {"b", "--sizes", "auto:8", out[0], out[1]};
    expect_error(5, half, "--sizes: 'auto:8' is not auto:MIN:MAX");
    const char *junk[] = {"b", "--sizes", "auto:8:64:y2", out[0], out[1]};
    expect_error(5, junk, "--sizes: 'auto:8:64:y2' is not auto:MIN:MAX");
    const char *huge[] = {"b", "--sizes", "auto:8:17179869184", out[0], out[1]};
    expect_error(5, huge, "--sizes auto:8:17179869184: size 8589934592 is too large");
    const char *odd[] = {"b", "--sizes", "auto:6:64", out[0], out[1]}; /* int: multiples of 4 */
    expect_error(5, odd, "--sizes auto:6:64: size 6 is not a multiple");
    const char *budget[] = {"b", "--sizes-budget", "4", out[0], out[1]};
    expect_error(5, budget, "--sizes-budget 4 applies only to --sizes auto:MIN:MAX");
    const char *unsized[] = {"b", "--ops", "barrier", "--sizes", "auto:8:64", out[0], out[1]};
    expect_error(7, unsized, "--sizes auto:8:64 applies only to operations that take a size");
}

/* Every float option of the table refuses a positive value too small to mean anything (1e-300, a
 * denormal, and half its smallest value): its bound is a number, not "above 0"; 0 itself only
 * where it means off (MM_OPT_F_OR_ZERO). */
static void test_float_options_refuse_absurdly_small_values(void) {
    size_t n;
    const mm_option_spec *t = mm_options(&n);
    int checked = 0;
    for (size_t i = 0; i < n; i++) {
        const mm_option_spec *o = &t[i];
        if (o->type != MM_OPT_FLOAT || o->offset == 0) continue;
        mm_config c;
        mm_config_defaults(&c);
        char msg[512], half[64];
        CHECK_EQ_INT(mm_option_parse_number(o, "0", &c, msg, sizeof msg), (o->flags & MM_OPT_F_OR_ZERO) ? 0 : MM_E_INPUT);
        snprintf(half, sizeof half, "%.17g", o->min / 2);
        const char *tiny[] = {"1e-300", "4.9e-324", half};
        for (size_t k = 0; k < sizeof tiny / sizeof tiny[0]; k++) {
            if (mm_option_parse_number(o, tiny[k], &c, msg, sizeof msg) != MM_E_INPUT) {
                fprintf(stderr, "--%s accepts %s\n", o->name, tiny[k]);
                CHECK(0);
            }
        }
        char least[64];
        snprintf(least, sizeof least, "%.17g", o->min);
        CHECK_EQ_INT(mm_option_parse_number(o, least, &c, msg, sizeof msg), 0);
        CHECK(o->min > 0);
        checked++;
    }
    CHECK(checked >= 14); /* window-us, the budgets, the precisions, the virtual clock, ... */
    /* a list of floats alike: --check-at 0 is the sync itself, 1e-300 s after it nothing */
    const char *at[] = {"b", "--sync-check", "--clocksync", "hca3", "--check-at", "0,1e-300,1"};
    expect_error(6, at, "--check-at: 1e-300 is out of range; allowed: 0, or a number from 1e-09 to 3600");
    const char *resync[] = {"b", "--resync-s", "1e-300", "--out", "/tmp/mm_unit_cfg/none-yet"};
    expect_error(5, resync, "--resync-s: 1e-300 is out of range; allowed: 0, or a number from 1e-09 to 1000000");
}

/* Every row of the option table has a setter, and a generic setter stores only into the field
 * its row's offset names: a value given changes those bytes of the configuration and no other
 * (a wrong offset, or one pointing at a field of another size, shows as bytes changed outside). */
static void test_every_row_sets_only_its_own_field(void) {
    size_t n;
    const mm_option_spec *t = mm_options(&n);
    int checked = 0;
    static size_t fields[256][2]; /* offset, width of the rows checked */
    CHECK(n <= 256);
    for (size_t i = 0; i < n; i++) {
        const mm_option_spec *o = &t[i];
        CHECK(o->set != NULL);
        size_t width = 0;
        const char *value = NULL;
        if (o->set == mm_option_set_name) width = MM_NAME_LEN, value = "x";
        else if (o->set == mm_option_set_path) width = MM_PATH_LEN, value = "/x";
        else if (o->set == mm_option_set_choice) width = sizeof(int), value = "";
        else if (o->set == mm_option_set_flag) width = sizeof(int), value = NULL;
        else if (o->set == mm_option_set_ints) width = sizeof(mm_int_list), value = "1";
        else if (o->set == mm_option_parse_number)
            width = o->type == MM_OPT_INT || o->type == MM_OPT_NPROCS ? sizeof(int) : 8, value = "";
        else continue;
        CHECK(o->offset > 0 && o->offset + width <= sizeof(mm_config));
        char text[64];
        if (o->set == mm_option_set_choice) { /* the second word: index 1 differs from 0 */
            const char *comma = strchr(o->choices, ',');
            snprintf(text, sizeof text, "%.*s", comma ? (int)strcspn(comma + 1, ",") : 0,
                     comma ? comma + 1 : "");
            value = text;
        } else if (o->set == mm_option_parse_number) { /* its maximum, never a default */
            double v = (o->flags & MM_OPT_F_BELOW) ? (o->min + o->max) / 2 : o->max;
            snprintf(text, sizeof text, "%.17g", o->type == MM_OPT_FLOAT ? v : floor(v));
            value = text;
        }
        static mm_config before, after;
        mm_config_defaults(&before);
        after = before;
        char msg[512];
        int rc = o->set(o, value, &after, msg, sizeof msg);
        if (rc != 0) fprintf(stderr, "--%s %s: %s\n", o->name, value ? value : "", msg);
        CHECK_EQ_INT(rc, 0);
        const unsigned char *b = (const unsigned char *)&before, *a = (const unsigned char *)&after;
        size_t changed = 0, outside = 0;
        for (size_t k = 0; k < sizeof(mm_config); k++) {
            if (a[k] == b[k]) continue;
            changed++;
            outside += k < o->offset || k >= o->offset + width;
        }
        if (changed == 0 || outside != 0) fprintf(stderr, "--%s: %zu bytes changed, %zu outside its field\n", o->name, changed, outside);
        CHECK(changed > 0);
        CHECK_EQ_INT((int)outside, 0);
        /* and no two rows store into the same bytes (a row copied with its offset) */
        for (int k = 0; k < checked; k++) {
            int overlap = o->offset < fields[k][0] + fields[k][1] && fields[k][0] < o->offset + width;
            if (overlap) fprintf(stderr, "--%s stores where an earlier row does\n", o->name);
            CHECK(!overlap);
        }
        fields[checked][0] = o->offset, fields[checked][1] = width;
        checked++;
    }
    CHECK(checked >= 50);
}

/* The configuration is broadcast as bytes to every rank of every launch: the --graph-file text
 * (up to MM_GRAPH_TEXT_MAX bytes) is sent apart, only by the launches that have one. */
static void test_the_graph_text_is_not_in_the_configuration(void) {
    CHECK(sizeof(mm_config) < MM_GRAPH_TEXT_MAX);
    const char *argv[] = {"b", "--out", "/tmp/mm_unit_cfg/none-yet"};
    CHECK_EQ_INT(parse(3, argv), 0);
    CHECK(cfg.topo.graph_text == NULL);
}

/* --inject-fault KIND:OP:SIZE (test only): the three parts stored; anything else refused, naming
 * the option. */
static void test_inject_fault(void) {
    const char *o = "/tmp/mm_unit_cfg/none-yet";
    { const char *a[] = {"b", "--inject-fault", "crash:allreduce:8", "--out", o};
      CHECK_EQ_INT(parse(5, a), 0);
      CHECK_EQ_INT(cfg.inject.fault, MM_FAULT_CRASH);
      CHECK(strcmp(cfg.inject.fault_op, "allreduce") == 0);
      CHECK(cfg.inject.fault_size == 8); }
    { const char *a[] = {"b", "--inject-fault", "hang:delay:30000000", "--out", o};
      CHECK_EQ_INT(parse(5, a), 0);
      CHECK_EQ_INT(cfg.inject.fault, MM_FAULT_HANG);
      CHECK(cfg.inject.fault_size == 30000000); }
    const char *bad[] = {"boom:allreduce:8", "crash:allreduce", "crash::8", "crash:allreduce:-1",
                         "crash:allreduce:8x", "crash:allreduce:", "hangs:allreduce:8"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *a[] = {"b", "--inject-fault", bad[i], "--out", o};
        expect_error(5, a, "--inject-fault: '");
    }
    { const char *a[] = {"b", "--inject-fault", "crash:nosuchop:8", "--out", o};
      expect_error(5, a, "--inject-fault: unknown operation 'nosuchop'"); }
}

/* --timer wtime reads MPI_Wtime, unreadable before MPI_Init; options are checked before it
 * (--validate, which mpimeter run asks), and a launch opens its timer after it: not refused. */
static void test_a_timer_needing_mpi_is_accepted_before_mpi_init(void) {
    const char *a[] = {"b", "--timer", "wtime", "--out", "/tmp/mm_unit_cfg/n"};
    CHECK_EQ_INT(parse(5, a), 0);
    CHECK_STR(cfg.timing.timer, "wtime");
    const char *v[] = {"b", "--timer", "virtual", "--virtual-base", "wtime", "--out", "/tmp/mm_unit_cfg/n"};
    CHECK_EQ_INT(parse(7, v), 0);
    CHECK_STR(cfg.timing.virtual_base, "wtime");
}

int main(void) {
    test_inject_fault();
    test_every_row_sets_only_its_own_field();
    test_the_graph_text_is_not_in_the_configuration();
    test_float_options_refuse_absurdly_small_values();
    test_defaults();
    test_sizes();
    test_errors();
    test_out_not_empty();
    test_values();
    test_virtual_params();
    test_sync_check_mode();
    test_quick_without_out();
    test_quick_folder_kept_is_named();
    test_adaptive_options();
    test_empty_list_items();
    test_window_us();
    test_virtual_clocks_need_a_sync();
    test_list_algorithms_ops();
    test_method_options_need_their_method();
    test_a_timer_needing_mpi_is_accepted_before_mpi_init();
    return mm_check_summary("test_config");
}
