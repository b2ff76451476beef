/* main.c — mpimeter-bench: parses the options once on rank 0, broadcasts them, and hands over
 * to the launch (or the sync check). No measurement logic lives here. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mm_bench.h"
#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_ops.h"
#include "mm_output.h"

/* --help, --list-ops and --version work without mpirun and without MPI_Init. */
static int mm__early_mode(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            mm_config_print_help(stdout);
            return 1;
        }
        if (strcmp(argv[i], "--list-ops") == 0) {
            mm_ops_print_list(stdout);
            return 1;
        }
        if (strcmp(argv[i], "--version") == 0) {
            printf("mpimeter-bench %s (schema %d)\n", MM_TOOL_VERSION, MM_SCHEMA_VERSION);
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    if (mm__early_mode(argc, argv)) return 0;
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    static mm_config cfg; /* large: kept off the stack */
    char err[2048] = "";
    int rc = 0;
    if (rank == 0) {
        rc = mm_config_parse(&cfg, argc, argv, err, sizeof err);
        if (rc == 0) rc = mm_config_check_nprocs(&cfg, nprocs, err, sizeof err);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != 0) {
        if (rank == 0) fprintf(stderr, "mpimeter-bench: %s\n", err);
        MPI_Finalize();
        return 2;
    }
    MPI_Bcast(&cfg, (int)sizeof cfg, MPI_BYTE, 0, MPI_COMM_WORLD);

    int exit_code = cfg.mode == MM_MODE_SYNC_CHECK ? mm_sync_check_run(&cfg, MPI_COMM_WORLD)
                                                   : mm_launch_run(&cfg, MPI_COMM_WORLD);
    MPI_Finalize();
    return exit_code;
}
