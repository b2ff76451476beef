/* SPDX-License-Identifier: BSD-3-Clause */
/* osu_loop.c — osu_latency's ping-pong loop with one thing changed per mode (bench/osu_agreement.py
 * runs it). 2 ranks; rank 0 prints one JSON line, times one-way (half the round trip) in ns.
 *
 * What OSU 7.4 does (c/mpi/pt2pt/standard/osu_latency.c, c/util/osu_util_mpi.c): page-aligned
 * buffers memset once, MPI_Barrier, then `skip` + `iters` round trips MPI_Send / MPI_Recv (with
 * a status) of MPI_CHAR; rank 0 reads MPI_Wtime before and after every timed round trip and
 * prints the sum over 2 x iters: the mean, every preempted round trip included. Modes:
 *   osu        that loop; every round trip kept, so that the same round trips also give their
 *              median, percentiles, the median of block means and the mean without the round
 *              trips above 10 x the median (a preempted rank)
 *   osu_cgt    the same with clock_gettime(CLOCK_MONOTONIC), mpimeter's default timer
 *   batch      the clock read only around blocks of `block` round trips (mpimeter --batch):
 *              the median of the block means, and the mean over all
 *   loop       the clock read once around all `iters` round trips (IMB's loop): the mean
 *   batch_dup  batch after one MPI_Comm_dup and MPI_Comm_free first, as any program that makes
 *              a communicator (mpimeter, IMB): in Open MPI 4.1 that leaves libnbc's progress
 *              callback polled by every later MPI call
 *   timer_cost two reads with nothing between, MPI_Wtime and clock_gettime (medians)
 * Why: osu_latency's 8 B average read 1.2 x mpimeter --batch's median (docs/ALGORITHMS.md,
 * "Agreement where the quantity is the same"); each mode isolates one difference of method.
 * Usage: osu_loop MODE SIZE ITERS SKIP BLOCK. Build: mpicc -O2 -o osu_loop osu_loop.c */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double cgt_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* sorts v */
static double median(double *v, long n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void round_trip(char *s, char *r, int size, int me) {
    MPI_Status st;
    if (me == 0) {
        MPI_Send(s, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(r, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &st);
    } else {
        MPI_Recv(r, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD, &st);
        MPI_Send(s, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
    }
}

static void timer_cost(long iters) {
    double *w = malloc(iters * sizeof *w), *c = malloc(iters * sizeof *c);
    for (long i = 0; i < iters; i++) {
        double a = MPI_Wtime(), b = MPI_Wtime();
        double x = cgt_s(), y = cgt_s();
        w[i] = b - a;
        c[i] = y - x;
    }
    printf("{\"mode\":\"timer_cost\",\"wtime_pair_median_ns\":%.1f,\"cgt_pair_median_ns\":%.1f}\n",
           median(w, iters) * 1e9, median(c, iters) * 1e9);
    free(w);
    free(c);
}

/* osu / osu_cgt at rank 0: one round trip per timed region, as osu_latency */
static void per_round_trip(const char *mode, char *s, char *r, int size, long iters, long skip,
                           long block) {
    int wtime = strcmp(mode, "osu") == 0;
    double *rt = malloc(iters * sizeof *rt), total = 0;
    for (long i = 0; i < iters + skip; i++) {
        double t0 = i >= skip ? (wtime ? MPI_Wtime() : cgt_s()) : 0;
        round_trip(s, r, size, 0);
        if (i >= skip) {
            double t1 = wtime ? MPI_Wtime() : cgt_s();
            total += t1 - t0;
            rt[i - skip] = t1 - t0;
        }
    }
    long nb = iters / block;
    double *blocks = malloc((nb > 0 ? nb : 1) * sizeof *blocks);
    for (long k = 0; k < nb; k++) {
        double sum = 0;
        for (long j = 0; j < block; j++) sum += rt[k * block + j];
        blocks[k] = sum / block;
    }
    double block_median = nb > 0 ? median(blocks, nb) : 0, med = median(rt, iters);
    double kept_sum = 0;
    long kept = 0;
    for (long i = 0; i < iters; i++)
        if (rt[i] <= 10 * med) kept_sum += rt[i], kept++;
    const double h = 0.5e9; /* one-way ns */
    printf("{\"mode\":\"%s\",\"size\":%d,\"iters\":%ld,\"cpu\":%d,\"mean_ns\":%.2f,\"median_ns\":%.2f,"
           "\"block_median_ns\":%.2f,\"mean_below_10x_median_ns\":%.2f,\"above_10x_median\":%ld,"
           "\"above_10x_median_share_of_total\":%.4f,\"p10_ns\":%.2f,\"p25_ns\":%.2f,\"p75_ns\":%.2f,"
           "\"p90_ns\":%.2f,\"p99_ns\":%.2f,\"max_ns\":%.1f}\n",
           mode, size, iters, sched_getcpu(), total / iters * h, med * h, block_median * h,
           kept_sum / kept * h, iters - kept, (total - kept_sum) / total, rt[iters / 10] * h,
           rt[iters / 4] * h, rt[iters * 3 / 4] * h, rt[iters * 9 / 10] * h, rt[iters * 99 / 100] * h,
           rt[iters - 1] * h);
    free(rt);
    free(blocks);
}

/* batch / loop at rank 0: the clock around `block` round trips */
static void per_block(const char *mode, char *s, char *r, int size, long iters, long skip,
                      long block) {
    long nb = iters / block;
    double *blocks = malloc(nb * sizeof *blocks), total = 0;
    for (long i = 0; i < skip; i++) round_trip(s, r, size, 0);
    for (long k = 0; k < nb; k++) {
        double t0 = cgt_s();
        for (long j = 0; j < block; j++) round_trip(s, r, size, 0);
        double t1 = cgt_s();
        blocks[k] = (t1 - t0) / block;
        total += t1 - t0;
    }
    printf("{\"mode\":\"%s\",\"size\":%d,\"iters\":%ld,\"cpu\":%d,\"mean_ns\":%.2f,"
           "\"block_median_ns\":%.2f,\"blocks\":%ld}\n",
           mode, size, nb * block, sched_getcpu(), total / (nb * block) * 0.5e9,
           median(blocks, nb) * 0.5e9, nb);
    free(blocks);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc != 6 || np != 2) {
        if (me == 0) fprintf(stderr, "usage: mpirun -np 2 osu_loop MODE SIZE ITERS SKIP BLOCK\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *mode = argv[1];
    int size = atoi(argv[2]);
    long iters = atol(argv[3]), skip = atol(argv[4]), block = atol(argv[5]);
    int per_rt = strcmp(mode, "osu") == 0 || strcmp(mode, "osu_cgt") == 0;
    if (strcmp(mode, "loop") == 0) block = iters;
    if (size < 1 || iters < 1 || skip < 0 || block < 1 || block > iters) MPI_Abort(MPI_COMM_WORLD, 2);
    long page = sysconf(_SC_PAGESIZE);
    char *s = NULL, *r = NULL;
    if (posix_memalign((void **)&s, page, size) || posix_memalign((void **)&r, page, size))
        MPI_Abort(MPI_COMM_WORLD, 3);
    memset(s, 'a', size);
    memset(r, 'b', size);
    int dup_first = strcmp(mode, "batch_dup") == 0;
    if (dup_first) {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Comm_free(&dup);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "timer_cost") == 0) {
        if (me == 0) timer_cost(iters);
    } else if (me == 1) { /* the answering rank times nothing, as in osu_latency */
        long n = skip + (per_rt ? iters : iters / block * block);
        for (long i = 0; i < n; i++) round_trip(s, r, size, 1);
    } else if (per_rt) {
        per_round_trip(mode, s, r, size, iters, skip, block);
    } else if (strcmp(mode, "batch") == 0 || dup_first || strcmp(mode, "loop") == 0) {
        per_block(mode, s, r, size, iters, skip, block);
    } else {
        fprintf(stderr, "osu_loop: unknown mode %s (osu, osu_cgt, batch, batch_dup, loop, timer_cost)\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
