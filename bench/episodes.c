/* SPDX-License-Identifier: BSD-3-Clause */
/* episodes.c — what moves with the slow episodes of a launch (bench/episodes.py runs it).
 *
 * 2 ranks, for SECONDS seconds (argv[1]); in each round, one after the other, each timed with
 * CLOCK_MONOTONIC around every call: 500 MPI_Allreduce of 2 ints (8 B, what a default campaign
 * measures), 50 runs of a fixed dependent floating-point loop on every rank (the core's own
 * speed), 500 8-byte MPI_Send/MPI_Recv round trips (the library's point-to-point path), and 500
 * round trips of one cache line between the ranks through an MPI-3 shared-memory window (the
 * machine's core-to-core path, as mpimeter's cache-line probe, without the library). Rank 0
 * prints one line per round: seconds since the start and the median of each (ns); the compute
 * loop is rank 0's. Why: within one state of the cache-line probe a launch's median of small
 * messages still moves by 20-30 % from launch to launch, in episodes of seconds; this shows
 * which of these paths moves with it inside one launch. Build: mpicc -O2 -o episodes episodes.c */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { CALLS = 500, LOOPS = 50, LOOP_STEPS = 20000 };

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t median(int64_t *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return v[n / 2];
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double seconds = argc > 1 ? atof(argv[1]) : 30.0;
    if (size != 2 || seconds <= 0) {
        if (rank == 0) fprintf(stderr, "episodes: run on exactly 2 ranks with SECONDS > 0\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Win win;
    volatile int64_t *line;
    MPI_Win_allocate_shared(rank == 0 ? 128 : 0, 1, MPI_INFO_NULL, node, (void *)&line, &win);
    MPI_Aint bytes;
    int unit;
    MPI_Win_shared_query(win, 0, &bytes, &unit, (void *)&line);
    if (rank == 0) line[0] = 0;
    MPI_Barrier(MPI_COMM_WORLD);

    int64_t t[CALLS];
    int send[2] = {1, 2}, recv[2];
    char msg[8] = {0}, got[8];
    volatile double x = 1.0;
    int64_t start = now_ns();
    if (rank == 0) printf("seconds allreduce_8_ns compute_ns pingpong_8_ns cacheline_rtt_ns\n");
    for (int go = 1; go;) {
        for (int i = 0; i < CALLS; i++) {
            int64_t a = now_ns();
            MPI_Allreduce(send, recv, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            t[i] = now_ns() - a;
        }
        int64_t allreduce = median(t, CALLS);
        for (int k = 0; k < LOOPS; k++) {
            int64_t a = now_ns();
            for (int i = 0; i < LOOP_STEPS; i++) x = x * 1.0000001 + 1e-9;
            t[k] = now_ns() - a;
        }
        int64_t compute = median(t, LOOPS);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < CALLS; i++) {
            int64_t a = now_ns();
            if (rank == 0) {
                MPI_Send(msg, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(got, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(got, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(msg, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
            }
            t[i] = now_ns() - a;
        }
        int64_t pingpong = median(t, CALLS);
        MPI_Barrier(MPI_COMM_WORLD);
        /* rank 0 makes the line odd and waits for rank 1 to make it even again */
        for (int i = 0; i < CALLS; i++) {
            int64_t a = now_ns();
            if (rank == 0) {
                int64_t v = line[0];
                line[0] = v + 1;
                while (line[0] == v + 1) {
                }
            } else {
                while ((line[0] & 1) == 0) {
                }
                line[0] = line[0] + 1;
            }
            t[i] = now_ns() - a;
        }
        int64_t cacheline = median(t, CALLS);
        double elapsed = (double)(now_ns() - start) / 1e9;
        if (rank == 0) printf("%.3f %lld %lld %lld %lld\n", elapsed, (long long)allreduce, (long long)compute,
                              (long long)pingpong, (long long)cacheline);
        go = elapsed < seconds;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    }
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
