/* SPDX-License-Identifier: BSD-3-Clause */
/* memcheck.c — before a launch allocates anything: will its buffers fit in memory?
 *
 * What: per rank, the largest test's buffers (mm_op_setup_bytes: what the op's setup
 * allocates under the launch's options — the root's share where it needs more, --rma-burst
 * blocks and windows of the one-sided rows (on the pair's two ranks only for a pair's rows),
 * a block per neighbour of the topology; for collective reductions one more block, the
 * temporary buffer Open MPI's and MPICH's reduction algorithms allocate inside the call), plus
 * what lives for the whole launch (the --cold-cache buffer and the per-repetition arrays); the
 * copy probe's buffers (--copy-probe-bytes, freed before the tests) count like one more test.
 * Summed over the ranks of each host (they run the same test at the same time) and compared with
 * what the host has: MemAvailable (/proc/meminfo), or the cgroup v2 limit left
 * (memory.max - memory.current) when that is smaller (a Slurm job or a container). When it does
 * not fit the launch is refused (exit 2) with the size, the memory needed and the memory
 * available; when neither can be read the check is skipped.
 * Why: Linux overcommits, so malloc of a too-large buffer succeeds and the kernel kills a rank
 * when setup fills it — leaving a launch folder whose meta.json says "running" forever.
 * Cost: one reduction over each host's ranks and one gather to rank 0, before the launch. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_error.h"
#include "mm_output.h"

#define MM__HOST_LEN 64

int64_t mm_mem_available_bytes(const char *meminfo_path) {
    FILE *f = fopen(meminfo_path, "r");
    if (!f) return -1;
    char line[256];
    long long kib = -1;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1) break;
        kib = -1;
    }
    fclose(f);
    return kib < 0 ? -1 : (int64_t)kib * 1024;
}

int64_t mm_cgroup_available_bytes(const char *max_path, const char *current_path) {
    long long limit = -1, used = -1;
    char word[64] = "";
    FILE *f = fopen(max_path, "r");
    if (!f) return -1;
    int got = fscanf(f, "%63s", word);
    fclose(f);
    if (got != 1 || sscanf(word, "%lld", &limit) != 1) return -1; /* "max": no limit */
    f = fopen(current_path, "r");
    if (!f) return -1;
    got = fscanf(f, "%lld", &used);
    fclose(f);
    if (got != 1 || limit < 0 || used < 0) return -1;
    return used >= limit ? 0 : (int64_t)(limit - used);
}

/* "23.2 GiB" for messages. */
static void mm__human_bytes(double bytes, char *out, size_t len) {
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024 && u < 5) {
        bytes /= 1024;
        u++;
    }
    snprintf(out, len, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

/* One host's verdict, sent to rank 0. */
enum { V_FAIL, V_TOTAL, V_AVAILABLE, V_TEST, V_FIXED, V_RANKS, V_CGROUP, V_N };

/* Rank 0: the message for a host that does not fit. */
static void mm__explain(const mm_config *cfg, const mm_test *tests, int ntests, const double *v,
                        const char *host, char *err, size_t len) {
    char total[32], avail[32], fixed[32], per_test[32];
    mm__human_bytes(v[V_TOTAL], total, sizeof total);
    mm__human_bytes(v[V_AVAILABLE], avail, sizeof avail);
    mm__human_bytes(v[V_FIXED], fixed, sizeof fixed);
    mm__human_bytes(v[V_TOTAL] - v[V_FIXED], per_test, sizeof per_test);
    int ranks = (int)v[V_RANKS];
    const char *source = v[V_CGROUP] != 0 ? "the cgroup limit memory.max - memory.current"
                                          : "MemAvailable in /proc/meminfo";
    if (v[V_TEST] < 0 || v[V_FIXED] > v[V_AVAILABLE]) {
        /* with --nrep auto the arrays hold --nrep-max repetitions: name the option that sets it */
        const char *nrep_option = cfg->adaptive.nrep_rule != MM_NREP_FIXED ? "--nrep-max" : "--nrep";
        snprintf(err, len,
                 "not enough memory on host %s for %d rank(s): the --cold-cache buffer (%" PRId64
                 " bytes per rank) and the arrays of %s %d repetitions need %s, but %s is "
                 "available (%s); allowed: a smaller --cold-cache or %s, or fewer ranks per "
                 "host",
                 host, ranks, cfg->measure.cold_cache_bytes, nrep_option, cfg->nrep, total, avail, source,
                 nrep_option);
        return;
    }
    if ((int)v[V_TEST] == ntests) {
        snprintf(err, len,
                 "--copy-probe-bytes %" PRId64 ": the copy probe's two buffers per rank need %s on "
                 "host %s (%d rank(s)), %s in all with the --cold-cache buffers and repetition arrays "
                 "(%s), but %s is available (%s); allowed: a smaller --copy-probe-bytes (0 = no "
                 "probe), or fewer ranks per host",
                 cfg->probe.copy_probe_bytes, per_test, host, ranks, total, fixed, avail, source);
        return;
    }
    const mm_test *t = &tests[(int)v[V_TEST]];
    /* the options that multiply the buffers beside the size (mm_op_setup_bytes) */
    char with[96] = "", smaller[96] = "";
    if (mm_op_uses_rma_burst(t->op)) {
        snprintf(with, sizeof with, " with --rma-burst %d", cfg->rma.burst);
        snprintf(smaller, sizeof smaller, ", a smaller --rma-burst");
    } else if (mm_op_is_neighbor(t->op)) {
        snprintf(with, sizeof with, " with a block per neighbour of %s",
                 cfg->topo.graph.nodes > 0 ? "--graph-file's graph" : "the --cart-dims torus");
        snprintf(smaller, sizeof smaller, ", fewer neighbours");
    }
    if (mm_op_uses_rma_sync(t->op) && !mm_op_is_rma_contention(t->op) && cfg->rma.window_bytes > 0)
        snprintf(smaller + strlen(smaller), sizeof smaller - strlen(smaller), ", a smaller --rma-window-bytes");
    snprintf(err, len,
             "--sizes %" PRId64 ": the buffers of %s at %" PRId64 " bytes%s need %s on host %s "
             "(%d rank(s)), %s in all with the --cold-cache buffers and repetition arrays (%s), "
             "but %s is available (%s); allowed: sizes whose buffers fit in the available memory "
             "(smaller --sizes%s, or fewer ranks per host)",
             t->size, t->op->name, t->size, with, per_test, host, ranks, total, fixed, avail, source, smaller);
}

/* This rank's bytes: need[0] for the whole launch; need[1 + i] test i's buffers (doubles: sums
 * can pass 2^63); need[1 + ntests] the copy probe's two buffers, freed before the first test. */
static void mm__needs(const mm_config *cfg, const mm_test *tests, int ntests, int rank, int nprocs,
                      int in_pair, double *need) {
    need[0] = (double)cfg->measure.cold_cache_bytes +
              (double)mm_rep_arrays_bytes(cfg->nrep, rank, nprocs, cfg->output.raw_reduced);
    /* rank 0 judging a test (--nrep auto, --sizes auto, the median --progress shows;
     * decide.c): two doubles per repetition */
    if (rank == 0 && (cfg->adaptive.nrep_rule != MM_NREP_FIXED || cfg->adaptive.sizes_auto ||
                      cfg->output.progress == MM_PROGRESS_ON))
        need[0] += 2.0 * (double)sizeof(double) * (double)cfg->nrep;
    for (int i = 0; i < ntests; i++) {
        const mm_op *op = tests[i].op;
        /* what setup allocates, under --rma-burst, --rma-window-bytes, the topology's degrees */
        need[1 + i] = (double)mm_op_setup_bytes(op, cfg, tests[i].size, tests[i].nprocs, rank, rank == tests[i].root);
        if (mm_op_uses_rma_sync(op) && !mm_op_is_rma_contention(op) && !in_pair) need[1 + i] = 0;
        if ((op->flags & MM_OP_REDUCES) && !mm_op_is_rma(op)) need[1 + i] += (double)tests[i].size;
    }
    need[1 + ntests] = 2.0 * (double)mm_copy_probe_bytes(mm_config_copy_probe_bytes_here(cfg));
}

/* A host's first rank: from sum (need summed over the host's ranks), the verdict when the
 * launch's bytes and its largest test's (or the copy probe's) pass what is available; verdict
 * is left as it is when they fit or nothing is readable. */
static void mm__host_verdict(const double *sum, int ntests, int node_size, double *verdict) {
    int64_t available = mm_mem_available_bytes("/proc/meminfo");
    int64_t in_cgroup = mm_cgroup_available_bytes("/sys/fs/cgroup/memory.max",
                                                  "/sys/fs/cgroup/memory.current");
    int by_cgroup = in_cgroup >= 0 && (available < 0 || in_cgroup < available);
    if (by_cgroup) available = in_cgroup;
    int worst = -1;
    double worst_bytes = 0;
    for (int i = 0; i <= ntests; i++) { /* i = ntests: the copy probe */
        if (sum[1 + i] <= worst_bytes) continue;
        worst = i;
        worst_bytes = sum[1 + i];
    }
    double total = sum[0] + worst_bytes;
    if (available >= 0 && total > (double)available) {
        double v[V_N] = {1, total, (double)available, worst, sum[0], node_size, by_cgroup};
        memcpy(verdict, v, sizeof v);
    }
}

int mm_memory_check(const mm_config *cfg, MPI_Comm comm, char *err, size_t err_len) {
    /* MPI failures here leave the check undecided (no refusal); the launch's own calls, which
     * come next, report them */
    mm_mpi_error e;
    mm_mpi_error_clear(&e);
    int rank = 0, nprocs = 1;
    MM_MPI(&e, MPI_Comm_rank(comm, &rank));
    MM_MPI(&e, MPI_Comm_size(comm, &nprocs));
    int plan_size = mm_plan_size(cfg, nprocs);
    mm_test *tests = calloc(plan_size > 0 ? (size_t)plan_size : 1, sizeof *tests);
    double *need = calloc((size_t)plan_size + 2, sizeof *need);
    double *sum = calloc((size_t)plan_size + 2, sizeof *sum); /* over the host's ranks */
    int ntests = tests ? mm_plan_build(cfg, nprocs, tests, plan_size) : 0;
    MPI_Comm node; /* the ranks sharing this machine's memory, whatever MPI calls a node */
    mm_comm_same_kernel(comm, &node, &e);
    int node_rank = 0, node_size = 1;
    MM_MPI(&e, MPI_Comm_rank(node, &node_rank));
    MM_MPI(&e, MPI_Comm_size(node, &node_size));
    /* a pair's one-sided rows allocate on the pair's two ranks only: those of --pair, or (chosen
     * by the launch, later) any two, so at most two of each host's ranks count */
    int in_pair = cfg->plan.pair_given ? rank == cfg->plan.pair[0] || rank == cfg->plan.pair[1] : node_rank < 2;
    if (tests && need) mm__needs(cfg, tests, ntests, rank, nprocs, in_pair, need);
    if (!mm_all_ok(comm, tests && need && sum)) { /* no memory even to plan: no check, as when /proc/meminfo is unreadable */
        MM_MPI(&e, MPI_Comm_free(&node));
        free(tests);
        free(need);
        free(sum);
        return 0;
    }

    MM_MPI(&e, MPI_Reduce(need, sum, ntests + 2, MPI_DOUBLE, MPI_SUM, 0, node));
    double verdict[V_N] = {0, 0, 0, -1, 0, 0, 0};
    char host[MM__HOST_LEN] = "";
    if (node_rank == 0) {
        mm__host_verdict(sum, ntests, node_size, verdict);
        char name[MPI_MAX_PROCESSOR_NAME];
        int name_len = 0;
        MM_MPI(&e, MPI_Get_processor_name(name, &name_len));
        snprintf(host, sizeof host, "%.*s", MM__HOST_LEN - 1, name);
    }
    MM_MPI(&e, MPI_Comm_free(&node));

    double *verdicts = rank == 0 ? malloc((size_t)nprocs * V_N * sizeof(double)) : NULL;
    char *hosts = rank == 0 ? malloc((size_t)nprocs * MM__HOST_LEN) : NULL;
    MM_MPI(&e, MPI_Gather(verdict, V_N, MPI_DOUBLE, verdicts, V_N, MPI_DOUBLE, 0, comm));
    MM_MPI(&e, MPI_Gather(host, MM__HOST_LEN, MPI_CHAR, hosts, MM__HOST_LEN, MPI_CHAR, 0, comm));
    int rc = 0;
    if (rank == 0) {
        for (int r = 0; verdicts && hosts && r < nprocs && rc == 0; r++) {
            if (verdicts[r * V_N + V_FAIL] == 0) continue;
            mm__explain(cfg, tests, ntests, &verdicts[r * V_N], &hosts[r * MM__HOST_LEN], err, err_len);
            rc = MM_E_INPUT;
        }
    }
    MM_MPI(&e, MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
    free(verdicts);
    free(hosts);
    free(tests);
    free(need);
    free(sum);
    return rc;
}

/* What mm__run_tests allocates for the repetitions: every rank's mm_rep_buffers, and on rank 0
 * every rank's arrays gathered. */
int64_t mm_rep_arrays_bytes(long nrep, int rank, int nprocs, int reduced) {
    /* start end gstart gend, 5 nonblocking components; flags and the blocking phase's flags */
    const int64_t per_rep = 9 * sizeof(int64_t) + 2 * sizeof(int32_t);
    return (int64_t)nrep * per_rep + mm_gather_bytes(nrep, rank, nprocs, reduced);
}
