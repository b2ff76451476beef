/* SPDX-License-Identifier: BSD-3-Clause */
/* main.c — mpimeter-bench: parses the options once on rank 0, broadcasts them, and hands over
 * to the launch (or the sync check). No measurement logic lives here. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mm_algorithms.h"
#include "mm_bench.h"
#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_counters.h"
#include "mm_error.h"
#include "mm_mpi.h"
#include "mm_ops.h"
#include "mm_output.h"
#include "app_output.h"

#include "lists.h"

/* Under a launcher every process runs main; what needs no MPI is printed by the first one only
 * (the launchers' rank variables; a plain process is rank 0). */
static int mm__launcher_rank(void) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                       "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return atoi(v);
    }
    return 0;
}

/* --help, --list-ops, --version, --describe and --validate work without mpirun and without
 * MPI_Init. Returns -1 when argv asks for none of them, else the exit code. */
static int mm__without_mpi(int argc, char **argv) {
    int validate = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--validate") == 0 || strncmp(argv[i], "--validate=", 11) == 0)
            validate = 1;
    }
    int first = mm__launcher_rank() == 0;
    static mm_config cfg; /* large: kept off the stack */
    if (validate) {
        /* every option checked as a launch of NP ranks would, without MPI */
        char err[2048] = "";
        int rc = mm_config_parse(&cfg, argc, argv, err, sizeof err);
        if (first) {
            if (rc != 0)
                fprintf(stderr, "mpimeter-bench: %s\n", err);
            else
                mm_config_print_validated(stdout, &cfg);
        }
        return mm_exit_code(rc);
    }
    for (int i = 1; i < argc; i++) {
        mm_mode mode = strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0 ? MM_MODE_HELP
                       : strcmp(argv[i], "--list-ops") == 0                          ? MM_MODE_LIST_OPS
                       : strcmp(argv[i], "--version") == 0                           ? MM_MODE_VERSION
                       : strcmp(argv[i], "--describe") == 0                          ? MM_MODE_DESCRIBE
                                                                                     : MM_MODE_BENCH;
        if (mode == MM_MODE_BENCH) continue;
        if (!first) return 0;
        if (mode == MM_MODE_HELP) mm_config_print_help(stdout, mm_help_width());
        if (mode == MM_MODE_LIST_OPS) mm_print_ops_list(stdout);
        if (mode == MM_MODE_VERSION)
            printf("mpimeter-bench %s (meta.json schema %d, --describe version %d)\n", MM_TOOL_VERSION,
                   MM_SCHEMA_VERSION, MM_DESCRIBE_VERSION);
        if (mode == MM_MODE_DESCRIBE) mm_config_print_describe(stdout);
        return 0;
    }
    return -1;
}

/* Each line of text as "mpimeter-bench: <line>" (the library's messages carry no name). */
static void mm__print_lines(FILE *f, const char *text) {
    while (text && *text) {
        const char *nl = strchr(text, '\n');
        int n = nl ? (int)(nl - text) : (int)strlen(text);
        fprintf(f, "mpimeter-bench: %.*s\n", n, text);
        text += n + (nl ? 1 : 0);
    }
}

/* A running launch's message, shown as it happens (mm_launch_result.on_message). */
static void mm__print_message(const char *line, void *ctx) {
    (void)ctx;
    fprintf(stderr, "mpimeter-bench: %s\n", line);
    fflush(stderr);
}

/* Rank 0: the options parsed and checked against the number of ranks, --progress resolved
 * (every rank must agree), the quick table's folder made. 0, or MM_E_INPUT with the message in msg. */
static mm_status mm__parse_on_rank0(mm_config *cfg, int argc, char **argv, int nprocs, char *msg,
                                    size_t len) {
    int rc = mm_config_parse(cfg, argc, argv, msg, len);
    if (rc == 0) rc = mm_config_check_nprocs(cfg, nprocs, msg, len);
    /* neither --progress nor --quiet: a line per test when rank 0's stderr is a terminal
     * (run alone, or srun --pty). mpirun and mpiexec hand ranks pipes for stderr (Open MPI
     * a pseudo-terminal for stdout, even when its own is a file), so under them only
     * --progress says that a person watches. */
    if (rc == 0 && cfg->output.progress == MM_PROGRESS_AUTO)
        cfg->output.progress = isatty(STDERR_FILENO) || cfg->output.quick ? MM_PROGRESS_ON : MM_PROGRESS_OFF;
    /* without --out, the quick table's folder (app/quick.c); the table is the point of such
     * a run, so it is printed under mpirun too (--quiet: none) */
    if (rc == 0 && cfg->output.quick) rc = mm_quick_make_folder(cfg, msg, len);
    return rc;
}

/* The configuration to every rank as bytes (plain data, one binary); the --graph-file text
 * apart, and only when a graph was given (then the launch runs a neighborhood collective on
 * it): up to 64 KiB no other launch sends. Each rank's config then points at its own copy. */
static void mm__bcast_config(mm_config *cfg, int rank, mm_mpi_error *err) {
    MM_MPI(err, MPI_Bcast(cfg, (int)sizeof *cfg, MPI_BYTE, 0, MPI_COMM_WORLD));
    if (rank != 0) cfg->topo.graph_text = NULL; /* rank 0's pointer */
    if (cfg->topo.graph.nodes == 0 || mm_mpi_failed(err)) return;
    int text_len = rank == 0 ? (int)strlen(cfg->topo.graph_text) : 0;
    MM_MPI(err, MPI_Bcast(&text_len, 1, MPI_INT, 0, MPI_COMM_WORLD));
    char *text = rank == 0 ? (char *)cfg->topo.graph_text : malloc((size_t)text_len + 1);
    if (!text) {
        fprintf(stderr, "mpimeter-bench: rank %d: no memory for the --graph-file text\n", rank);
        mm_abort_after_line(MPI_COMM_WORLD, 1);
    }
    MM_MPI(err, MPI_Bcast(text, text_len + 1, MPI_CHAR, 0, MPI_COMM_WORLD));
    cfg->topo.graph_text = text; /* kept for the launch: freed with the process */
}

/* --list-algorithms and --list-pvars: need MPI, print and end. The exit code, or -1 for the
 * other modes. */
static int mm__run_listing(const mm_config *cfg, int rank, const char *argv0) {
    if (cfg->run.mode == MM_MODE_LIST_ALGORITHMS) {
        const char *ops[MM_MAX_OPS];
        for (int i = 0; i < cfg->nops; i++) ops[i] = cfg->ops[i];
        int code = rank == 0 ? mm_app_list_algorithms(stdout, argv0, ops, cfg->ops_given ? cfg->nops : 0) : 0;
        if (code != 0 && rank == 0)
            fprintf(stderr, "mpimeter-bench: the library's control variables could not be read (MPI_T)\n");
        return code < 0 ? mm_exit_code(code) : code;
    }
    if (cfg->run.mode == MM_MODE_LIST_PVARS) {
        static mm_pvar_list pvars;
        int code = mm_counters_list_pvars(&pvars, MPI_COMM_WORLD);
        if (code == MM_E_NOMEM && rank == 0)
            fprintf(stderr, "mpimeter-bench: out of memory listing the performance variables\n");
        else if (rank == 0)
            mm_print_pvar_list(stdout, &pvars);
        mm_pvar_list_free(&pvars);
        return code < 0 ? mm_exit_code(code) : code;
    }
    return -1;
}

/* What the ranks' library and hosts must offer, before anything is written: the counters'
 * names, and a window kind these ranks can make (shared memory across nodes). The exit code,
 * or -1 when all is there. */
static int mm__check_ranks_offer(mm_config *cfg, int rank, char *msg, size_t len) {
    int resolved = mm_counters_resolve(cfg, MPI_COMM_WORLD, msg, len);
    if (resolved != 0) {
        if (rank == 0 || resolved != MM_E_INPUT) fprintf(stderr, "mpimeter-bench: %s\n", msg);
        return mm_exit_code(resolved);
    }
    int uses_rma = 0;
    for (int i = 0; i < cfg->nops; i++) uses_rma |= mm_op_is_rma(mm_op_find(cfg->ops[i]));
    if (cfg->run.mode == MM_MODE_BENCH && uses_rma) {
        int placed = mm_rma_check_placement(cfg->rma.window, MPI_COMM_WORLD, msg, len);
        if (placed != 0) {
            if (rank == 0) fprintf(stderr, "mpimeter-bench: %s\n", msg);
            return mm_exit_code(placed);
        }
    }
    return -1;
}

int main(int argc, char **argv) {
    /* meta.json's "phases" count from here (mm_launch_result.main_entered_ns): MPI_Init is the
     * first part of a launch's cost */
    struct timespec entered;
    clock_gettime(CLOCK_MONOTONIC, &entered);
    /* a probe process of --list-algorithms: MPI_T only, never MPI_Init (app/list_algorithms.c) */
    if (argc > 1 && strcmp(argv[1], MM_ALG_PROBE_FLAG) == 0) return mm_app_algorithm_probe(argc, argv);
    int early = mm__without_mpi(argc, argv);
    if (early >= 0) return early;
    MPI_Init(&argc, &argv);
    /* errors come back to us: a failing call marks its test failed instead of aborting the job */
    mm_mpi_error err;
    mm_mpi_error_clear(&err);
    MM_MPI(&err, mm_mpi_errors_return(MPI_COMM_WORLD));
    int rank = 0, nprocs = 1;
    MM_MPI(&err, MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    MM_MPI(&err, MPI_Comm_size(MPI_COMM_WORLD, &nprocs));

    static mm_config cfg; /* large: kept off the stack */
    char msg[2048] = "";
    int rc = rank == 0 ? mm__parse_on_rank0(&cfg, argc, argv, nprocs, msg, sizeof msg) : 0;
    MM_MPI(&err, MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (rc != 0) {
        if (rank == 0) fprintf(stderr, "mpimeter-bench: %s\n", msg);
        MPI_Finalize();
        return 2;
    }
    mm__bcast_config(&cfg, rank, &err);
    if (mm_mpi_failed(&err)) {
        mm_mpi_error_format(&err, msg, sizeof msg);
        fprintf(stderr, "mpimeter-bench: rank %d: MPI failed before the launch: %s\n", rank, msg);
        mm_abort_after_line(MPI_COMM_WORLD, 1);
    }
    int code = mm__run_listing(&cfg, rank, argv[0]);
    if (code < 0) code = mm__check_ranks_offer(&cfg, rank, msg, sizeof msg);
    if (code < 0 && cfg.run.mode == MM_MODE_SYNC_CHECK) code = mm_exit_code(mm_sync_check_run(&cfg, MPI_COMM_WORLD));
    if (code >= 0) {
        if (code != 0) mm_quick_remove_unused_folder(&cfg, rank, stderr);
        MPI_Finalize();
        return code;
    }
    static mm_launch_result result; /* large: kept off the stack */
    result.on_message = mm__print_message;
    result.main_entered_ns = (int64_t)entered.tv_sec * 1000000000 + entered.tv_nsec;
    static mm_quick_table table; /* the quick table's state (app/quick.c) */
    table.cfg = &cfg;
    if (cfg.output.progress == MM_PROGRESS_ON) result.on_test = cfg.output.quick ? mm_quick_table_row : mm_progress_print;
    result.on_test_ctx = &table;
    int status = mm_launch_run(&cfg, MPI_COMM_WORLD, &result);
    mm__print_lines(stderr, result.messages);
    if (rank == 0 && status == MM_OK) printf("mpimeter-bench: wrote %s (%d tests)\n", cfg.out, result.ntests);
    if (status != MM_OK) mm_quick_remove_unused_folder(&cfg, rank, stderr);
    MPI_Finalize();
    return mm_exit_code(status);
}
