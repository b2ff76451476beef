/* SPDX-License-Identifier: BSD-3-Clause */
/* test_output.c — the launch folder writers (no MPI_Init): raw.csv and sync.csv against golden
 * files (byte for byte; MM_REGEN_GOLDEN=1 rewrites them — only deliberately), meta.json
 * rendering (valid JSON, key order, nulls, redaction), --out checks and the atomic meta write.
 * Runs in c/tests/unit (goldens in golden/); scratch files go to a fresh folder under /tmp. */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mm_check.h"
#include "mm_error.h"
#include "mm_output.h"
#include "mm_test_files.h"

static int write_all(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Number of entries in a folder besides . and .. (-1 when unreadable). */
static int count_entries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Compares a produced file with golden/<name> byte for byte (or rewrites the golden). */
static void check_golden(const char *produced, const char *name) {
    char golden[512];
    snprintf(golden, sizeof golden, "golden/%s", name);
    size_t n_prod = 0, n_gold = 0;
    char *prod = mm_test_read_file(produced, &n_prod);
    CHECK(prod != NULL);
    if (!prod) return;
    const char *regen = getenv("MM_REGEN_GOLDEN");
    if (regen && strcmp(regen, "1") == 0) {
        CHECK(write_all(golden, prod) == 0);
        fprintf(stderr, "regenerated %s\n", golden);
    }
    char *gold = mm_test_read_file(golden, &n_gold);
    CHECK(gold != NULL);
    if (gold) {
        CHECK(n_prod == n_gold && memcmp(prod, gold, n_prod) == 0);
        if (n_prod != n_gold || memcmp(prod, gold, n_prod) != 0)
            fprintf(stderr, "%s differs from %s:\n--- produced\n%s--- golden\n%s", produced,
                    golden, prod, gold);
    }
    free(prod);
    free(gold);
}

static const mm_op op_bcast = {.name = "bcast", .pattern = "root to all", .constraints = ""};
static const mm_op op_barrier = {.name = "barrier", .pattern = "all", .constraints = ""};

/* 2 ranks x 3 reps; rank 1 starts before the epoch (negative), rank 1 rep 1 invalid. */
static const int64_t EPOCH = 1000000;
static const int64_t start2x3[6] = {1000100, 1000300, 1000500, /* rank 0 */
                                    999990, 1000310, 1000490}; /* rank 1 */
static const int64_t end2x3[6] = {1000150, 1000360, 1000540, 1000060, 1000400, 1000530};
static const int64_t gstart2x3[6] = {1000100, 1000300, 1000500, 1000095, 1000305, 1000502};
static const int64_t gend2x3[6] = {1000150, 1000360, 1000540, 1000165, 1000395, 1000542};
static const int32_t invalid2x3[6] = {0, 0, 0, 0, MM_INVALID_OVERRUN | MM_INVALID_LATE_START, 0};
/* a nonblocking test's components (init, test, wait, compute, blocking), [rank * 3 + rep];
 * INT64_MIN: the blocking phase did not reach this repetition (written empty) */
static const int64_t init2x3[6] = {11, 12, 13, 21, 22, 23};
static const int64_t tests2x3[6] = {0, 5, 0, 7, 0, 0};
static const int64_t wait2x3[6] = {30, 31, 32, 40, 41, 42};
static const int64_t compute2x3[6] = {100, 101, 102, 99, 98, 97};
static const int64_t blocking2x3[6] = {60, 61, INT64_MIN, 70, 71, 72};
static const int64_t *const components2x3[5] = {init2x3, tests2x3, wait2x3, compute2x3,
                                                 blocking2x3};
static const mm_op op_ibcast = {.name = "ibcast", .pattern = "root to all", .constraints = ""};

/* The 2-rank, 3-repetition arrays above written for test t: the global columns from
 * gstart2x3/gend2x3 when `arrays`, and declared present when has_global. */
static int write_2x3(FILE *raw, const mm_test *t, int arrays, int has_global,
                     const int64_t *const *components, int reduced) {
    return mm_raw_write_test(raw, t, 2, 3, start2x3, end2x3, arrays ? gstart2x3 : NULL,
                             arrays ? gend2x3 : NULL, invalid2x3, components, EPOCH, has_global,
                             reduced);
}

static void test_raw_writer(const char *tmp) {
    char dir[1024], raw[1100];
    char err[512] = "";
    snprintf(dir, sizeof dir, "%s/launch_full", tmp);
    mm_outdir o;
    CHECK_EQ_INT(mm_outdir_open(&o, dir, err, sizeof err), 0);
    mm_test t0 = {.index = 0, .op = &op_bcast, .size = 1024, .status = MM_TEST_COMPLETE, .nrep = 3};
    mm_test t1 = {.index = 1, .op = &op_barrier, .size = 0, .root = -1, .status = MM_TEST_COMPLETE, .nrep = 3};
    /* test 0 with a global clock, test 1 without (empty g-columns) */
    CHECK_EQ_INT(write_2x3(o.raw, &t0, 1, 1, NULL, 0), 0);
    CHECK_EQ_INT(write_2x3(o.raw, &t1, 0, 0, NULL, 0), 0);
    mm_test t2 = {.index = 2, .op = &op_ibcast, .size = 64, .status = MM_TEST_COMPLETE, .nrep = 3};
    CHECK_EQ_INT(write_2x3(o.raw, &t2, 1, 1, components2x3, 0), 0);
    /* bad input writes nothing: has_global without global arrays, op name with a comma */
    CHECK_EQ_INT(write_2x3(o.raw, &t0, 0, 1, NULL, 0), MM_E_FAILED);
    const mm_op op_comma = {.name = "a,b"};
    mm_test tc = {.index = 2, .op = &op_comma, .size = 8};
    CHECK_EQ_INT(write_2x3(o.raw, &tc, 0, 0, NULL, 0), MM_E_FAILED);
    mm_outdir_close(&o);
    snprintf(raw, sizeof raw, "%s/raw.csv", dir);
    check_golden(raw, "raw_full.csv");

    /* reduced: one row per repetition */
    snprintf(dir, sizeof dir, "%s/launch_reduced", tmp);
    CHECK_EQ_INT(mm_outdir_open(&o, dir, err, sizeof err), 0);
    CHECK_EQ_INT(write_2x3(o.raw, &t0, 1, 1, NULL, 1), 0);
    CHECK_EQ_INT(write_2x3(o.raw, &t1, 0, 0, NULL, 1), 0);
    CHECK_EQ_INT(write_2x3(o.raw, &t2, 1, 1, components2x3, 1), 0);
    mm_outdir_close(&o);
    snprintf(raw, sizeof raw, "%s/raw.csv", dir);
    check_golden(raw, "raw_reduced.csv");
}

static void test_sync_writer(const char *tmp) {
    char dir[1024], path[1100], err[512] = "";
    snprintf(dir, sizeof dir, "%s/launch_sync", tmp);
    mm_outdir o;
    CHECK_EQ_INT(mm_outdir_open(&o, dir, err, sizeof err), 0);
    const mm_sync_record rec[] = {
        {1, 0, MM_SYNC_EDGE, 0, EPOCH + 2000, -1500, 800},
        {1, 0, MM_SYNC_EDGE, 0, EPOCH + 4000, -1520, 760},
        {0, 0, MM_SYNC_MODEL, -1, EPOCH + 5000, 0, 0},
        {1, 0, MM_SYNC_MODEL, -1, EPOCH + 5000, -1510, 0},
        {1, -1, MM_SYNC_RESIDUAL, 0, EPOCH + 6000, 12, 700},
        {1, 1, MM_SYNC_EDGE, 0, EPOCH - 10, 3, 650},
        {1, -2, MM_SYNC_RESIDUAL, 0, EPOCH + 9000000000LL, -40, 690},
    };
    CHECK_EQ_INT(mm_sync_write(o.sync, rec, sizeof rec / sizeof rec[0], EPOCH), 0);
    const mm_sync_record bad[] = {{1, 0, MM_SYNC_EDGE, 0, 1, 2, 3}, {1, 0, 7, 0, 1, 2, 3}};
    CHECK_EQ_INT(mm_sync_write(o.sync, bad, 2, EPOCH), -1); /* unknown kind: nothing written */
    CHECK_EQ_INT(mm_sync_write(o.sync, NULL, 0, EPOCH), 0);
    mm_outdir_close(&o);
    snprintf(path, sizeof path, "%s/sync.csv", dir);
    check_golden(path, "sync.csv");
}

static const char *const expected_top_keys[] = {
    "schema_version", "tool", "status", "pid", "host_of_rank0", "argv", "config", "nprocs",
    "operations", "mpi", "build", "system", "ranks", "probes", "environment", "load", "timer",
    "clock_sync", "proc_sync", "launch_epoch_local_ns_rank0", "wall_start", "wall_end", "tests",
    "size_refinement", "conditions"};

/* Top-level keys appear, at indent 2, in FORMAT.md's order. */
static void check_top_keys(const char *text) {
    CHECK(strncmp(text, "{\n  \"schema_version\": 4,\n", 25) == 0);
    const char *at = text;
    for (size_t i = 0; i < sizeof expected_top_keys / sizeof expected_top_keys[0]; i++) {
        char needle[64];
        snprintf(needle, sizeof needle, "\n  \"%s\": ", expected_top_keys[i]);
        const char *found = strstr(at, needle);
        CHECK(found != NULL);
        if (!found) fprintf(stderr, "top-level key %s missing or out of order\n", expected_top_keys[i]);
        if (found) at = found;
    }
}

/* Runs python3 (if on PATH) on the file: valid JSON, plus an optional assertion script. */
static void check_with_python(const char *json_path, const char *asserts) {
    if (system("command -v python3 >/dev/null 2>&1") != 0) {
        fprintf(stderr, "note: python3 not on PATH; JSON validity not checked by a parser\n");
        return;
    }
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s'",
             json_path);
    CHECK_EQ_INT(system(cmd), 0);
    if (asserts) {
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))\n%s' '%s'", asserts,
                 json_path);
        int rc = system(cmd);
        CHECK_EQ_INT(rc, 0);
    }
}

/* meta.json text written to tmp/name and read back by Python, which runs asserts on it (m). */
static void check_meta_with_python(const char *tmp, const char *name, const char *meta,
                                   const char *asserts) {
    char path[1100];
    snprintf(path, sizeof path, "%s/%s", tmp, name);
    CHECK(write_all(path, meta) == 0);
    check_with_python(path, asserts);
}

static void test_meta_render(const char *tmp) {
    mm_config cfg;
    memset(&cfg, 0, sizeof cfg);
    snprintf(cfg.ops[0], MM_NAME_LEN, "bcast");
    snprintf(cfg.ops[1], MM_NAME_LEN, "barrier");
    cfg.nops = 2;
    cfg.sizes[0] = 8, cfg.sizes[1] = 1024, cfg.nsizes = 2;
    cfg.nrep = 3, cfg.measure.warmup = 1;
    snprintf(cfg.timing.timer, MM_NAME_LEN, "virtual");
    snprintf(cfg.clocksync[0], MM_NAME_LEN, "skampi");
    cfg.nclocksync = 1;
    snprintf(cfg.procsync, MM_NAME_LEN, "window");
    cfg.plan.seed = UINT64_MAX;
    snprintf(cfg.measure.datatype, MM_NAME_LEN, "byte");
    snprintf(cfg.measure.reduce_op, MM_NAME_LEN, "sum");
    snprintf(cfg.out, MM_PATH_LEN, "results/m1");
    snprintf(cfg.timing.virtual_base, MM_NAME_LEN, "monotonic");
    cfg.timing.virtual_offset_s = 0.5, cfg.timing.virtual_skew_ppm = -10;
    cfg.cs.params = (mm_clocksync_params){.nfit = 20, .pingpong_cap = 100, .n_nonimproving = 10,
                                          .min_rounds = 5, .fit_span_s = 0.1};
    cfg.cs.resync_s = 2.0, cfg.cs.resync_given = 1;
    cfg.ps.roundtime_budget_s = 1.0, cfg.ps.bcast_factor = 3.0;
    snprintf(cfg.output.argv_joined, MM_ARGV_LEN, "[\"mpimeter-bench\",\"--out\",\"results/m1\"]");

    static const mm_timer_vtable tvt = {.name = "virtual"};
    mm_timer timer = {.vt = &tvt, .resolution_ns = 1.0, .overhead_ns = 20.5};
    static const mm_clocksync_vtable cvt = {.name = "skampi", .model_kind = "offset"};
    mm_clocksync cs;
    memset(&cs, 0, sizeof cs);
    cs.vt = &cvt, cs.params = cfg.cs.params, cs.nsyncs = 3, cs.duration_s = 0.01,
    cfg.cs.params.nfit = 0, cs.params.nfit = 16;        /* default: resolved by the sync */
    cfg.cs.params.min_rounds = 0, cs.params.min_rounds = 0; /* not used by the algorithm */
    cs.total_duration_s = 0.03;
    static const mm_procsync_vtable pvt = {.name = "window", .scheme = "MS4"};
    mm_procsync ps;
    memset(&ps, 0, sizeof ps);
    ps.vt = &pvt;

    mm_provenance prov;
    memset(&prov, 0, sizeof prov);
    snprintf(prov.mpi_library, sizeof prov.mpi_library, "openmpi");
    snprintf(prov.mpi_version, sizeof prov.mpi_version, "MPI 3.1");
    prov.library_version_full = strdup("Open MPI v4.1.4, package: Debian\nsecond line");
    snprintf(prov.kernel, sizeof prov.kernel, "Linux 6.18 x86_64");
    snprintf(prov.cpu_model, sizeof prov.cpu_model, "AMD \"EPYC\"");
    snprintf(prov.tsc_flags, sizeof prov.tsc_flags, "constant_tsc nonstop_tsc");
    prov.ncpus = 2;
    mm_rank_info ranks[2] = {{.host = "node1", .pid = 11, .cpus = "0-1,3"},
                             {.host = "node2", .pid = 12, .cpus = ""}};
    prov.ranks = ranks;
    char *envp[] = {"PATH=/usr/bin", "OMPI_MCA_btl=self,vader", "UCX_PASSWORD=hunter2",
                    "MY_API_TOKEN=opensesame", "SLURM_JOB_ID=42", "MPIMETER_NOTE=a \"quoted\"\nline",
                    "COMPILER_PATH=/opt/cc", "ompi_lower=x", NULL};
    mm_environment_json(&prov.environment_json, envp);
    prov.loadavg_start[0] = 0.1, prov.loadavg_start[1] = 0.2, prov.loadavg_start[2] = 0.3;
    prov.pid = 11;
    snprintf(prov.wall_start, sizeof prov.wall_start, "2026-11-22T05:10:00Z");

    mm_test tests[4] = {
        {.index = 0, .op = &op_bcast, .size = 8, .nprocs = 2, .root = 1, .status = MM_TEST_COMPLETE, .nrep = 3,
         .nrep_asked = 5, .ended_by_budget = 1, .invalid = 1, .invalid_by_reason = {1, 1, 0, 2},
         .window_ns = 120000, .start_tolerance_ns = 1000, .started_s = 0.01, .duration_s = 0.2,
         .bound_bytes_per_size = 1.0, .overhead_ns = 24.5},
        {.index = 1, .op = &op_barrier, .size = 0, .root = -1, .status = MM_TEST_RUNNING, .nrep_asked = 5,
         .window_ns = 90000, .started_s = 0.25, .bound_bytes_per_size = -1, .overhead_ns = -1, .workpieces = 7},
        {.index = 2, .op = &op_bcast, .size = 1024, .status = MM_TEST_FAILED, .nrep_asked = 5,
         .error_code = "mpi-error", .error_message = "MPI_Bcast: MPI_ERR_COUNT: invalid count"},
        {.index = 3, .op = &op_barrier, .size = 0, .nprocs = 2, .root = -1, .status = MM_TEST_COMPLETE, .nrep = 5,
         .nrep_asked = 5, .started_s = 0.5, .duration_s = 0.1, .nrep_rule = MM_NREP_CI,
         .stopped_by = MM_STOP_PRECISION, .precision_reached = 0.015, .valid_used = 4,
         .decisions = 1}};
    int res_ranks[1] = {1};
    int64_t res_ns[1] = {-12};
    mm_clock_model models[2] = {{0, 0.0, 0.0}, {123, 1e-6, -1510.5}};
    int parents[2] = {-1, 0};
    int64_t voff[2] = {0, 500000000};
    double vskew[2] = {0.0, -10.0};
    static mm_conditions conditions;
    memset(&conditions, 0, sizeof conditions);
    mm_condition *c1 = mm_conditions_entry(&conditions, "oversubscribed", "node1");
    snprintf(c1->message, sizeof c1->message, "window overruns in test 0");
    snprintf(c1->hint, sizeof c1->hint, "<b> & \"c\"");
    CHECK(mm_conditions_entry(&conditions, "oversubscribed", "node1") == c1); /* found again */
    CHECK(mm_conditions_entry(&conditions, "budget-ended-tests", NULL) != c1);
    for (int i = 0; i < MM_MAX_CONDITIONS + 3; i++) {
        char where[16];
        snprintf(where, sizeof where, "w%d", i);
        mm_conditions_entry(&conditions, "test-failed", where);
    }
    CHECK(conditions.n == MM_MAX_CONDITIONS && conditions.dropped == 5);
    /* the record's facts, as bench/launch_state.c fills them from the modules */
    mm_sync_facts sync;
    mm_clocksync_facts_of(&cfg, &cs, &sync);
    mm_op_facts ops[MM_MAX_OPS];
    int nops = mm_op_facts_of_config(&cfg, 2, ops, MM_MAX_OPS);
    mm_launch l = {.cfg = &cfg, .nprocs = 2, .status = "running", .timer = &timer, .sync = &sync,
                   .procsync_method = ps.vt->name, .procsync_scheme = ps.vt->scheme,
                   .ops = ops, .nops = nops, .prov = &prov, .tests = tests, .ntests = 4,
                   .epoch_local_ns_rank0 = 123456789, .nresidual_start = 1,
                   .nresidual_end = -1, .residual_ranks_start = res_ranks,
                   .residual_start_ns = res_ns, .models = models, .parents = parents,
                   .virtual_offsets_ns = voff, .virtual_skews_ppm = vskew,
                   .conditions = &conditions};
    mm_buf meta = {0};
    mm_meta_render(&l, &meta);
    check_top_keys(meta.data);
    CHECK(strstr(meta.data, "hunter2") == NULL);
    CHECK(strstr(meta.data, "opensesame") == NULL);
    CHECK(strstr(meta.data, "\"UCX_PASSWORD\": \"\\u003credacted\\u003e\"") != NULL ||
          strstr(meta.data, "\"UCX_PASSWORD\":\"\\u003credacted\\u003e\"") != NULL);
    CHECK(strstr(meta.data, "\"seed\": 18446744073709551615") != NULL);
    CHECK(strstr(meta.data, "COMPILER_PATH") == NULL);
    /* rendering twice gives the same text (the buffer is replaced, not appended to) */
    mm_buf again = {0};
    mm_buf_append(&again, "garbage", 7);
    mm_meta_render(&l, &again);
    CHECK(again.len == meta.len && strcmp(again.data, meta.data) == 0);
    mm_buf_free(&again);

    check_meta_with_python(
        tmp, "meta_full.json", meta.data,
        "assert list(m)[0] == \"schema_version\" and m[\"schema_version\"] == 4\n"
        "assert m[\"environment\"] == {\"MPIMETER_NOTE\": \"a \\\"quoted\\\"\\nline\", "
        "\"OMPI_MCA_btl\": \"self,vader\", \"SLURM_JOB_ID\": \"42\", \"UCX_PASSWORD\": "
        "\"<redacted>\"}, m[\"environment\"]\n"
        "assert m[\"argv\"] == [\"mpimeter-bench\", \"--out\", \"results/m1\"]\n"
        "c = m[\"config\"]; assert c[\"window_us\"] is None and c[\"resync_s\"] == 2.0\n"
        "assert c[\"nbc_scheme\"] == \"time\" and c[\"nbc_compute_ns\"] is None and c[\"test_interval_bytes\"] is None\n"
        "assert c[\"clocksync_params\"] == {\"nfit\": 16, \"pingpong_cap\": 100, "
        "\"n_nonimproving\": 10, \"min_rounds\": None, \"fit_span_s\": 0.1, \"fit_target_ns\": None}\n"
        "assert c[\"raw\"] == \"full\" and c[\"force\"] is False and c[\"clocksync\"] == \"skampi\"\n"
        "assert m[\"mpi\"][\"library_version\"] == \"Open MPI v4.1.4, package: Debian\"\n"
        "assert m[\"mpi\"][\"library_version_full\"].endswith(\"\\nsecond line\")\n"
        "assert m[\"system\"][\"tsc_flags\"] == [\"constant_tsc\", \"nonstop_tsc\"]\n"
        "assert m[\"system\"][\"governor\"] is None and m[\"system\"][\"cpu_model\"] == \"AMD \\\"EPYC\\\"\"\n"
        "assert m[\"ranks\"][0] == {\"rank\": 0, \"host\": \"node1\", \"cpus\": [0, 1, 3], \"pid\": 11, "
        "\"cpus_seen\": None, \"cpu_changes\": None, \"cpu_khz\": None}\n"
        "assert m[\"probes\"] == {\"cacheline_rtt_ns\": [], \"empty_region_ns\": None, \"pingpong_pair\": None, "
        "\"copy_bandwidth\": None, \"latency_floor\": None} and m[\"mpi\"][\"mpi_t\"] is None\n"
        "assert m[\"ranks\"][1][\"cpus\"] == []\n"
        "assert m[\"load\"][\"loadavg_end\"] is None and m[\"load\"][\"wall_s\"] is None\n"
        "assert m[\"timer\"][\"tsc_hz\"] is None and m[\"timer\"][\"virtual\"][\"offsets_ns\"] == [0, 500000000]\n"
        "s = m[\"clock_sync\"]; assert s[\"resyncs\"] == 2 and s[\"parents\"] == [-1, 0]\n"
        "assert s[\"residual_start\"] == {\"ranks\": [1], \"residual_ns\": [-12], \"max_abs_ns\": 12}\n"
        "assert s[\"residual_end\"] is None and \"warning\" not in s and s[\"failed_syncs\"] == 0\n"
        "assert s[\"models\"][1] == {\"rank\": 1, \"anchor_ns\": 123, \"slope\": 1e-06, \"intercept_ns\": -1510.5}\n"
        "p = m[\"proc_sync\"]; assert p[\"window_ns_by_test\"] == {\"0\": 120000, \"1\": 90000}\n"
        "assert p[\"invalid\"] == {\"total\": 1, \"late_start\": 1, \"overrun\": 1, \"round_late\": 0, "
        "\"late_wakeup\": 2}\n"
        "assert [t[\"status\"] for t in m[\"tests\"]] == [\"complete\", \"running\", \"failed\", \"complete\"]\n"
        "assert m[\"tests\"][2][\"error\"] == {\"code\": \"mpi-error\", \"message\": \"MPI_Bcast: MPI_ERR_COUNT: invalid count\"}\n"
        "assert m[\"tests\"][0][\"nbc\"] is None\n"
        "assert m[\"tests\"][0][\"error\"] is None and m[\"tests\"][0][\"invalid_late_wakeup\"] == 2\n"
        "assert m[\"tests\"][0][\"start_tolerance_ns\"] == 1000 and m[\"tests\"][3][\"start_tolerance_ns\"] is None\n"
        "assert m[\"operations\"][\"bcast\"] == {\"kind\": \"rooted-collective\", \"ranks_finish_apart\": True, "
        "\"size_unit\": \"bytes\", \"round_trip\": False, \"uses_pair\": False, \"bound_volume\": {\"formula\": \"size\", \"bytes_per_size\": 1}}\n"
        "assert m[\"operations\"][\"barrier\"] == {\"kind\": \"collective\", \"ranks_finish_apart\": False, "
        "\"size_unit\": \"bytes\", \"round_trip\": False, \"uses_pair\": False, \"bound_volume\": {\"formula\": \"0\", \"bytes_per_size\": 0}}\n"
        "assert m[\"config\"][\"copy_probe_bytes\"] == 0\n"
        "assert m[\"config\"][\"start_tolerance_ns\"] is None\n"
        "assert [t[\"nrep\"] for t in m[\"tests\"]] == [3, 0, 0, 5]\n"
        "assert [t[\"nrep_asked\"] for t in m[\"tests\"]] == [5, 5, 5, 5]\n"
        "assert [t[\"ended_by\"] for t in m[\"tests\"]] == [\"budget\", None, None, \"rule\"]\n"
        "assert m[\"tests\"][3][\"adaptive\"] == {\"rule\": \"ci\", \"stopped_by\": \"precision\", "
        "\"precision\": 0.015, \"valid\": 4, \"decisions\": 1} and m[\"tests\"][0][\"adaptive\"] is None\n"
        "assert [t[\"size_added\"] for t in m[\"tests\"]] == [False] * 4 and m[\"tests\"][0][\"refine_round\"] is None\n"
        "assert m[\"size_refinement\"] is None and c[\"nrep_auto\"] is None and c[\"sizes_auto\"] is None\n"
        "assert list(m[\"tests\"][0])[:3] == [\"test\", \"op\", \"size\"]\n"
        "assert list(m[\"tests\"][0])[3:10] == [\"nprocs\", \"root\", \"status\", \"error\", \"nrep\", \"nrep_asked\", \"ended_by\"]\n"
        "assert [t[\"nprocs\"] for t in m[\"tests\"]] == [2, 0, 0, 2] and m[\"tests\"][0][\"root\"] == 1\n"
        "assert \"root\" not in m[\"tests\"][1] and \"root\" not in m[\"tests\"][3] and m[\"tests\"][2][\"root\"] == 0\n"
        "assert c[\"root\"] == [] and c[\"batch\"] == 0\n"
        "assert m[\"tests\"][1][\"duration_s\"] is None and m[\"tests\"][2][\"started_s\"] == 0\n"
        "assert m[\"tests\"][2][\"window_ns\"] is None\n"
        "assert m[\"tests\"][0][\"bound_bytes_per_size\"] == 1 and m[\"tests\"][0][\"overhead_ns\"] == 24.5\n"
        "assert m[\"tests\"][1][\"bound_bytes_per_size\"] is None and m[\"tests\"][1][\"overhead_ns\"] is None\n"
        "assert m[\"tests\"][1][\"workpieces\"] == 7 and \"workpieces\" not in m[\"tests\"][0]\n"
        "assert m[\"wall_end\"] is None and \"warnings\" not in m\n"
        "c = m[\"conditions\"]; assert len(c) == 49 and c[0] == {\"code\": \"oversubscribed\", "
        "\"message\": \"window overruns in test 0\", \"hint\": \"<b> & \\\"c\\\"\", \"where\": \"node1\"}\n"
        "assert c[1][\"where\"] is None and c[-1][\"code\"] == \"conditions-dropped\" and \"5 more\" in c[-1][\"message\"]\n");

    /* the probes of the bound: the copy rates per size and the sampled pairs' round trips */
    prov.has_copy = 1;
    prov.copy = (mm_copy_probe){.max_bytes = 65536, .ranks_at_once = 2, .nsizes = 2,
                                .rate = {{4096, 256, 2, 1e10, 1.5e10, 2e10}, {65536, 16, 0, -1, -1, -1}}};
    prov.has_survey = 1;
    prov.survey = (mm_pair_survey){.nsamples = 1, .sample = {{0, 1}}, .median_rtt_ns = {310},
                                   .min_rtt_ns = {250}};
    mm_meta_render(&l, &meta);
    check_meta_with_python(
        tmp, "meta_probes.json", meta.data,
        "c = m[\"probes\"][\"copy_bandwidth\"]\n"
        "assert c[\"max_bytes\"] == 65536 and c[\"ranks_at_once\"] == 2 and c[\"batches\"] == 5\n"
        "assert c[\"sizes\"][0] == {\"bytes\": 4096, \"copies_per_batch\": 256, \"ranks\": 2, "
        "\"min_Bps\": 1e10, \"median_Bps\": 1.5e10, \"max_Bps\": 2e10}\n"
        "assert c[\"sizes\"][1][\"median_Bps\"] is None and c[\"sizes\"][1][\"ranks\"] == 0\n"
        "f = m[\"probes\"][\"latency_floor\"]\n"
        "assert f == {\"pairs_by\": \"sampled\", \"message_bytes\": 1, \"round_trips\": 51, "
        "\"pairs\": [{\"ranks\": [0, 1], \"min_rtt_ns\": 250, \"median_rtt_ns\": 310}]}\n");
    /* --nrep auto and --sizes auto: the rule and the bounds in config, the refinement's record */
    cfg.adaptive.nrep_rule = MM_NREP_RSE, cfg.adaptive.nrep_min = 30, cfg.adaptive.nrep_max = 3000, cfg.adaptive.precision = 0.01;
    cfg.adaptive.nrep_every = 10, cfg.adaptive.nrep_budget_s = 10.0, cfg.adaptive.nrep_confidence = 0.95;
    cfg.adaptive.sizes_auto = 1, cfg.adaptive.sizes_min = 8, cfg.adaptive.sizes_max = 1024, cfg.adaptive.sizes_factor = 2;
    cfg.adaptive.sizes_precision = 0.05, cfg.adaptive.sizes_budget = 16;
    tests[2].size_added = 1, tests[2].refine_round = 1; /* bcast 1024 as if added in round 1 */
    mm_refine_op refine[1] = {{.op = &op_bcast, .nadded = 1, .rounds = 2, .max_error = 0.01,
                               .stopped_by = MM_STOP_PRECISION}};
    l.refine = refine, l.nrefine = 1;
    mm_meta_render(&l, &meta);
    check_top_keys(meta.data);
    check_meta_with_python(
        tmp, "meta_adaptive.json", meta.data,
        "c = m[\"config\"]; assert c[\"nrep_auto\"] == {\"rule\": \"rse\", \"min\": 30, \"max\": 3000, "
        "\"precision\": 0.01, \"confidence\": None, \"every\": 10, \"budget_s\": 10.0}, c[\"nrep_auto\"]\n"
        "assert c[\"sizes_auto\"] == {\"min\": 8, \"max\": 1024, \"factor\": 2, \"precision\": 0.05, "
        "\"budget\": 16}\n"
        "assert m[\"size_refinement\"] == [{\"op\": \"bcast\", \"added\": [1024], \"rounds\": 2, "
        "\"max_error\": 0.01, \"stopped_by\": \"precision\"}], m[\"size_refinement\"]\n"
        "assert [t[\"refine_round\"] for t in m[\"tests\"]] == [0, 0, 1, 0]\n"
        "assert [t[\"size_added\"] for t in m[\"tests\"]] == [False, False, True, False]\n");

    /* a launch with nothing known yet: every key present, nulls, still valid JSON */
    mm_launch empty;
    memset(&empty, 0, sizeof empty);
    empty.nresidual_start = empty.nresidual_end = -1;
    mm_meta_render(&empty, &meta);
    check_top_keys(meta.data);
    CHECK(strstr(meta.data, "\"clock_sync\": null") != NULL);
    CHECK(strstr(meta.data, "\"tests\": []") != NULL);
    check_meta_with_python(
        tmp, "meta_empty.json", meta.data,
        "assert m[\"config\"] is None and m[\"status\"] is None\n"
        "assert m[\"build\"][\"compiler\"]\n");
    mm_buf_free(&meta);
    mm_buf_free(&prov.environment_json);
    free(prov.library_version_full);
}

static void test_env_names(void) {
    CHECK(mm_env_name_is_secret("GITHUB_TOKEN"));
    CHECK(mm_env_name_is_secret("github_token"));
    CHECK(mm_env_name_is_secret("Api_Key"));
    CHECK(mm_env_name_is_secret("DB_PASSWD"));
    CHECK(mm_env_name_is_secret("MY_PASSWORD_FILE"));
    CHECK(mm_env_name_is_secret("AWS_SECRET_ACCESS"));
    CHECK(mm_env_name_is_secret("GOOGLE_CREDENTIALS"));
    CHECK(!mm_env_name_is_secret("OMPI_MCA_btl"));
    CHECK(!mm_env_name_is_secret("PATH"));
    /* the broader rule: names that leaked with the old word list (TOKEN, SECRET, PASSWORD, ...) */
    const char *secret[] = {"SLURM_DB_PASS", "MPI_AUTH", "UCX_PASSPHRASE", "I_MPI_PWD",
                            "HYDRA_CRED", "FI_AUTH_TOK", "PMIX_PRIVATE_X", "UCX_TLS_CERT"};
    for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++) {
        CHECK(mm_env_name_is_secret(secret[i]));
        if (!mm_env_name_is_secret(secret[i])) fprintf(stderr, "  not secret: %s\n", secret[i]);
    }
    CHECK(!mm_env_name_is_secret("UCX_TLS"));
    CHECK(!mm_env_name_is_secret("SLURM_JOB_ID"));
    const char *recorded[] = {"OMPI_MCA_btl", "PMIX_RANK", "MPICH_ASYNC", "MPIR_CVAR_X",
                              "MPIEXEC_TIMEOUT", "HYDRA_HOST_FILE", "PMI_RANK", "I_MPI_PIN",
                              "UCX_TLS", "FI_PROVIDER", "SLURM_JOB_ID", "OMP_NUM_THREADS",
                              "MV2_ENABLE_AFFINITY", "MPI_HOME", "MPIMETER_X", "PRTE_MCA_x",
                              "OPAL_PREFIX", "PSM2_X", "KMP_AFFINITY"};
    for (size_t i = 0; i < sizeof recorded / sizeof recorded[0]; i++) {
        CHECK(mm_env_name_is_recorded(recorded[i]));
        if (!mm_env_name_is_recorded(recorded[i])) fprintf(stderr, "  not recorded: %s\n", recorded[i]);
    }
    /* an allow-list: names that merely contain MPI are not recorded */
    CHECK(!mm_env_name_is_recorded("SMPI_FOO"));
    CHECK(!mm_env_name_is_recorded("PATH"));
    CHECK(!mm_env_name_is_recorded("HOME"));
    CHECK(!mm_env_name_is_recorded("COMPILER_PATH"));
    CHECK(!mm_env_name_is_recorded("FIFO"));
    CHECK(!mm_env_name_is_recorded("ompi_lower"));
}

/* Runs mm_outdir_check in a child without root's permission override; returns the exit code
 * of its status (mm_exit_code; its message in msg, when given), or -1 when privileges could not be dropped. */
static int check_as_unprivileged(const char *path, char *msg, size_t msg_len) {
    int fds[2];
    if (pipe(fds) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(99);
        char err[2048] = "";
        int rc = mm_outdir_check(path, 0, err, sizeof err);
        ssize_t w = write(fds[1], err, strlen(err));
        (void)w;
        _exit(mm_exit_code(rc));
    }
    close(fds[1]);
    char buf[2048];
    ssize_t n = pid > 0 ? read(fds[0], buf, sizeof buf - 1) : -1;
    close(fds[0]);
    buf[n > 0 ? n : 0] = '\0';
    if (msg) snprintf(msg, msg_len, "%s", buf);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status) == 99 ? -1 : WEXITSTATUS(status);
}

static void test_outdir_check(const char *tmp) {
    char path[1024], path2[1100], err[512];
    /* does not exist, several levels deep: fine, and nothing is created */
    snprintf(path, sizeof path, "%s/new/a/b", tmp);
    err[0] = '\0';
    CHECK_EQ_INT(mm_outdir_check(path, 0, err, sizeof err), 0);
    snprintf(path2, sizeof path2, "%s/new", tmp);
    CHECK(!exists(path2));
    /* exists and empty: fine */
    snprintf(path, sizeof path, "%s/empty", tmp);
    CHECK(mkdir(path, 0755) == 0);
    CHECK_EQ_INT(mm_outdir_check(path, 0, err, sizeof err), 0);
    /* exists and not empty: refused without --force, nothing created; fine with --force */
    snprintf(path, sizeof path, "%s/used", tmp);
    CHECK(mkdir(path, 0755) == 0);
    snprintf(path2, sizeof path2, "%s/used/raw.csv", tmp);
    CHECK(write_all(path2, "old\n") == 0);
    err[0] = '\0';
    CHECK_EQ_INT(mm_outdir_check(path, 0, err, sizeof err), MM_E_INPUT);
    CHECK(strstr(err, "--out") && strstr(err, "exists and is not empty") && strstr(err, "--force"));
    CHECK(strstr(err, path) != NULL);
    CHECK_EQ_INT(count_entries(path), 1);
    CHECK_EQ_INT(mm_outdir_check(path, 1, err, sizeof err), 0);
    /* a file, and a path through a file: refused even with --force */
    CHECK_EQ_INT(mm_outdir_check(path2, 1, err, sizeof err), MM_E_INPUT);
    CHECK(strstr(err, "not a folder") != NULL);
    snprintf(path, sizeof path, "%s/used/raw.csv/sub", tmp);
    CHECK_EQ_INT(mm_outdir_check(path, 1, err, sizeof err), MM_E_INPUT);
    CHECK_EQ_INT(mm_outdir_check("", 0, err, sizeof err), MM_E_INPUT);
    /* not creatable: under a read-only folder (checked without root's override) */
    snprintf(path, sizeof path, "%s/readonly", tmp);
    CHECK(mkdir(path, 0555) == 0 && chmod(path, 0555) == 0);
    snprintf(path2, sizeof path2, "%s/readonly/x/y", tmp);
    char msg[2048];
    int rc = check_as_unprivileged(path2, msg, sizeof msg);
    if (rc < 0) {
        fprintf(stderr, "note: could not drop privileges; read-only case not checked\n");
    } else {
        CHECK_EQ_INT(rc, 2);
        /* the reason is the failing access()'s, not a leftover ENOENT of the walk up */
        CHECK(strstr(msg, "Permission denied") != NULL && strstr(msg, "No such file") == NULL);
        CHECK(strstr(msg, "readonly") != NULL);
        if (!strstr(msg, "Permission denied")) fprintf(stderr, "  message: %s\n", msg);
    }
    snprintf(path2, sizeof path2, "%s/readonly/x", tmp);
    CHECK(!exists(path2));
    /* the unprivileged user may create a new --out inside a folder writable by all */
    snprintf(path2, sizeof path2, "%s/empty/x", tmp);
    snprintf(path, sizeof path, "%s/empty", tmp);
    CHECK(chmod(path, 0777) == 0);
    if (rc >= 0) CHECK_EQ_INT(check_as_unprivileged(path2, NULL, 0), 0);
    /* a pseudo file system where mkdir fails although access() says yes: the message says so */
    if (access("/proc", F_OK) == 0) {
        CHECK_EQ_INT(mm_outdir_check("/proc/mpimeter-test/x", 0, err, sizeof err), MM_E_INPUT);
        /* root gets as far as mkdir; another user is stopped by the permission check first */
        const char *expected = geteuid() == 0 ? "cannot create a folder in /proc" : "no permission";
        int as_expected = strstr(err, "/proc") != NULL && strstr(err, expected) != NULL;
        CHECK(as_expected);
        if (!as_expected) fprintf(stderr, "  message: %s\n", err);
    }
}

static void test_outdir_open_and_meta(const char *tmp) {
    char dir[1024], path[1100], err[512] = "";
    mm_outdir o;
    /* a used folder (as after --force): raw/sync/meta are truncated, headers rewritten */
    snprintf(dir, sizeof dir, "%s/forced", tmp);
    CHECK(mkdir(dir, 0755) == 0);
    snprintf(path, sizeof path, "%s/raw.csv", dir);
    CHECK(write_all(path, "old rows\n1,2,3\n") == 0);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    CHECK(write_all(path, "{\"status\": \"complete\"}\n") == 0);
    CHECK_EQ_INT(mm_outdir_open(&o, dir, err, sizeof err), 0);
    size_t n = 0;
    char *text = mm_test_read_file(path, &n);
    CHECK(text && n == 0); /* the old meta.json no longer describes anything */
    free(text);
    snprintf(path, sizeof path, "%s/raw.csv", dir);
    text = mm_test_read_file(path, NULL);
    CHECK_STR(text, "test,op,size,rank,rep,start_ns,end_ns,valid,gstart_ns,gend_ns,init_ns,test_ns,wait_ns,compute_ns,blocking_ns\n");
    free(text);
    snprintf(path, sizeof path, "%s/sync.csv", dir);
    text = mm_test_read_file(path, NULL);
    CHECK_STR(text, "rank,phase,kind,peer,local_ns,offset_ns,rtt_ns\n");
    free(text);

    /* atomic meta writes: content replaced, newline-terminated, no temporary left behind */
    mm_buf meta = {0};
    mm_buf_append(&meta, "{\"schema_version\": 1, \"status\": \"running\"}", 42);
    CHECK_EQ_INT(mm_outdir_write_meta(&o, &meta, MM_META_FINAL), 0);
    meta.len = 0;
    mm_buf_append(&meta, "{\"schema_version\": 1, \"status\": \"complete\"}\n", 44);
    CHECK_EQ_INT(mm_outdir_write_meta(&o, &meta, MM_META_FINAL), 0);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    text = mm_test_read_file(path, NULL);
    CHECK_STR(text, "{\"schema_version\": 1, \"status\": \"complete\"}\n");
    free(text);
    snprintf(path, sizeof path, "%s/.meta.json.tmp", dir);
    CHECK(!exists(path));
    CHECK_EQ_INT(count_entries(dir), 3);
    mm_outdir_close(&o);
    CHECK(o.raw == NULL && o.sync == NULL);
    /* the folder vanished: an error, not a crash, and no temporary file */
    mm_outdir gone;
    memset(&gone, 0, sizeof gone);
    snprintf(gone.path, sizeof gone.path, "%s/vanished", tmp);
    CHECK_EQ_INT(mm_outdir_write_meta(&gone, &meta, MM_META_FINAL), -1);
    CHECK(!exists(gone.path));
    mm_buf_free(&meta);

    /* mkdir -p of a nested new folder */
    snprintf(dir, sizeof dir, "%s/deep/er/launches/000/", tmp);
    CHECK_EQ_INT(mm_outdir_open(&o, dir, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/deep/er/launches/000/raw.csv", tmp);
    CHECK(exists(path));
    mm_outdir_close(&o);
    /* cannot be created: a file in the way */
    snprintf(path, sizeof path, "%s/deep/er/launches/000/raw.csv/x", tmp);
    CHECK_EQ_INT(mm_outdir_open(&o, path, err, sizeof err), -1);
    CHECK(strstr(err, "cannot create") != NULL);
}

int main(void) {
    char tmp[] = "/tmp/mm_test_output_XXXXXX";
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    chmod(tmp, 0755); /* the unprivileged child must be able to look inside */
    test_raw_writer(tmp);
    test_sync_writer(tmp);
    test_meta_render(tmp);
    test_env_names();
    test_outdir_check(tmp);
    test_outdir_open_and_meta(tmp);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "chmod -R u+w '%s' && rm -rf '%s'", tmp, tmp);
    if (mm_check_failed == 0 && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
    if (mm_check_failed) fprintf(stderr, "scratch files kept in %s\n", tmp);
    return mm_check_summary("output");
}
