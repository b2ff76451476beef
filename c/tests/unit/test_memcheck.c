/* SPDX-License-Identifier: BSD-3-Clause */
/* test_memcheck.c — the pure parts of the memory check before a launch (no MPI_Init): reading
 * MemAvailable from a meminfo file and what a cgroup v2 limit leaves from memory.max and
 * memory.current (and skipping when they cannot be read), and the bytes of the per-repetition
 * arrays. The collective check itself is exercised by c/tests/mpi. */
#include <stdlib.h>
#include <unistd.h>

#include "mm_bench.h"
#include "mm_check.h"

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

static void test_mem_available(void) {
    char dir[] = "/tmp/mm_test_memcheck_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/meminfo", dir);
    write_file(path, "MemTotal:       24684092 kB\nMemFree:         1000 kB\n"
                     "MemAvailable:   24315924 kB\nBuffers:          5 kB\n");
    CHECK_EQ_INT(mm_mem_available_bytes(path), 24315924LL * 1024);
    /* an old kernel without MemAvailable, a missing file: unknown (-1), never an error */
    write_file(path, "MemTotal:       24684092 kB\nMemFree:         1000 kB\n");
    CHECK_EQ_INT(mm_mem_available_bytes(path), -1);
    write_file(path, "");
    CHECK_EQ_INT(mm_mem_available_bytes(path), -1);
    unlink(path);
    CHECK_EQ_INT(mm_mem_available_bytes(path), -1);
    rmdir(dir);
    /* the real one, when there is one, is positive */
    if (access("/proc/meminfo", R_OK) == 0) CHECK(mm_mem_available_bytes("/proc/meminfo") > 0);
}

static void test_cgroup_available(void) {
    char dir[] = "/tmp/mm_test_cgroup_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char max[128], current[128];
    snprintf(max, sizeof max, "%s/memory.max", dir);
    snprintf(current, sizeof current, "%s/memory.current", dir);
    write_file(max, "8589934592\n");
    write_file(current, "1073741824\n");
    CHECK_EQ_INT(mm_cgroup_available_bytes(max, current), 7516192768LL); /* 8 GiB - 1 GiB */
    write_file(current, "9000000000\n"); /* over the limit (page cache): nothing left */
    CHECK_EQ_INT(mm_cgroup_available_bytes(max, current), 0);
    write_file(max, "max\n"); /* no limit */
    CHECK_EQ_INT(mm_cgroup_available_bytes(max, current), -1);
    write_file(max, "8589934592\n");
    write_file(current, ""); /* empty: unknown */
    CHECK_EQ_INT(mm_cgroup_available_bytes(max, current), -1);
    write_file(max, ""); /* empty: unknown */
    write_file(current, "1073741824\n");
    CHECK_EQ_INT(mm_cgroup_available_bytes(max, current), -1);
    write_file(max, "8589934592\n");
    unlink(current); /* unreadable: unknown */
    CHECK_EQ_INT(mm_cgroup_available_bytes(max, current), -1);
    unlink(max);
    CHECK_EQ_INT(mm_cgroup_available_bytes(max, current), -1);
    rmdir(dir);
}

static void test_rep_arrays(void) {
    /* start, end, gstart, gend, 5 nonblocking components (int64) and two flags (int32) per
     * repetition, and the reduced mode's scratch (two int64, one int32) on every rank */
    CHECK_EQ_INT(mm_rep_arrays_bytes(100, 1, 4, 0), 100 * 80 + 100 * 20);
    CHECK_EQ_INT(mm_rep_arrays_bytes(100, 1, 4, 1), 100 * 80 + 100 * 20);
    /* rank 0 also holds a chunk of ranks' gathered arrays (76 B per rank and repetition), and
     * one flag per repetition (4 B)... all 4 ranks fit in one chunk here */
    CHECK_EQ_INT(mm_gather_chunk_ranks(100, 4), 4);
    CHECK_EQ_INT(mm_rep_arrays_bytes(100, 0, 4, 0), 100 * 80 + 100 * 20 + 4 * 100 * 76 + 100 * 4);
    CHECK_EQ_INT(mm_rep_arrays_bytes(100000000, 0, 1, 0), 100000000LL * (80 + 20 + 76 + 4));
    /* ... but not at 1024 ranks x 1000 repetitions: 55 ranks per chunk (4 MiB / 76 000 B), so
     * rank 0 needs 4.3 MB instead of the 82 MB a whole gather took */
    CHECK_EQ_INT(mm_gather_chunk_ranks(1000, 1024), 4194304 / 76000);
    CHECK_EQ_INT(mm_rep_arrays_bytes(1000, 0, 1024, 0), 1000LL * (80 + 20 + 4) + 55LL * 1000 * 76);
    CHECK(mm_rep_arrays_bytes(1000, 0, 1024, 0) < MM_GATHER_CHUNK_BYTES + 1000 * 104);
    /* with --raw reduced rank 0 holds the reductions' results, one rank's worth, whatever p:
     * O(nrep), as much at 1024 ranks as at 4 */
    CHECK_EQ_INT(mm_rep_arrays_bytes(1000, 0, 1024, 1), 1000LL * (80 + 20 + 76 + 4));
    CHECK_EQ_INT(mm_rep_arrays_bytes(1000, 0, 1024, 1), mm_rep_arrays_bytes(1000, 0, 4, 1));
    /* a repetition count too large for one rank's arrays in a chunk still gathers one rank */
    CHECK_EQ_INT(mm_gather_chunk_ranks(100000000, 8), 1);
}

int main(void) {
    test_mem_available();
    test_cgroup_available();
    test_rep_arrays();
    return mm_check_summary("test_memcheck");
}
