/* SPDX-License-Identifier: BSD-3-Clause */
/* test_durability.c — which writes of the launch folder fsync (no MPI_Init): the rows of raw.csv
 * and sync.csv and the meta.json checkpoints while a launch runs are flushed and renamed into
 * place without one; the final meta.json write fsyncs raw.csv and sync.csv first (the rows it
 * lists), then its temporary file, then the folder (mm_output.h, mm_meta_write; docs/FORMAT.md,
 * "A launch folder"). A fsync waits for the file system's journal: on a busy disk tens
 * of ms each, which a launch of three tests paid about twenty times. Scratch files go to a fresh
 * folder under /tmp. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mm_check.h"
#include "mm_counters.h"
#include "mm_error.h"
#include "mm_output.h"
#include "mm_test_files.h"

/* Every fsync of the code under test comes here (this definition takes libc's place in the
 * link): counted, the descriptors kept in order, then passed to the kernel. */
static int fsync_calls;
static int fsync_fds[8];
int fsync(int fd) {
    if (fsync_calls < (int)(sizeof fsync_fds / sizeof fsync_fds[0])) fsync_fds[fsync_calls] = fd;
    fsync_calls++;
    return (int)syscall(SYS_fsync, fd);
}

static const mm_op op_bcast = {.name = "bcast", .pattern = "root to all", .constraints = ""};
static const int64_t start[2] = {100, 200}, end[2] = {150, 260}, gstart[2] = {101, 201},
                     gend[2] = {151, 261};
static const int32_t invalid[2] = {0, 0};

/* One launch's writes in order: rows and sync records (flushed, visible to a reader at once),
 * a checkpoint, then the final meta.json. */
static void test_launch_writes(const char *tmp) {
    char dir[1024], path[1100], err[512] = "";
    snprintf(dir, sizeof dir, "%s/launch", tmp);
    mm_outdir o;
    CHECK_EQ_INT(mm_outdir_open(&o, dir, err, sizeof err), 0);
    fsync_calls = 0;

    mm_test t = {.index = 0, .op = &op_bcast, .size = 8, .status = MM_TEST_COMPLETE, .nrep = 1};
    CHECK_EQ_INT(mm_raw_write_test(o.raw, &t, 2, 1, start, end, gstart, gend, invalid, NULL, 0, 1, 0), 0);
    const mm_sync_record rec[] = {{1, 0, MM_SYNC_MODEL, -1, 5000, -1510, 0}};
    CHECK_EQ_INT(mm_sync_write(o.sync, rec, 1, 0), 0);
    CHECK_EQ_INT(fsync_calls, 0);
    /* flushed: a reader (or a launch killed now) has the rows without a fsync */
    snprintf(path, sizeof path, "%s/raw.csv", dir);
    char *text = mm_test_read_file(path, NULL);
    CHECK(text && strstr(text, "0,bcast,8,1,0,200,260,1,201,261") != NULL);
    free(text);
    snprintf(path, sizeof path, "%s/sync.csv", dir);
    text = mm_test_read_file(path, NULL);
    CHECK(text && strstr(text, "1,0,model,-1,5000,-1510,0\n") != NULL);
    free(text);

    mm_buf meta = {0};
    mm_buf_append(&meta, "{\"status\": \"running\"}\n", 22);
    CHECK_EQ_INT(mm_outdir_write_meta(&o, &meta, MM_META_CHECKPOINT), 0);
    CHECK_EQ_INT(fsync_calls, 0);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    text = mm_test_read_file(path, NULL);
    CHECK(text && strcmp(text, "{\"status\": \"running\"}\n") == 0);
    free(text);

    meta.len = 0;
    mm_buf_append(&meta, "{\"status\": \"complete\"}\n", 23);
    CHECK_EQ_INT(mm_outdir_write_meta(&o, &meta, MM_META_FINAL), 0);
    CHECK_EQ_INT(fsync_calls, 4); /* raw.csv, sync.csv, the temporary meta.json, the folder */
    CHECK_EQ_INT(fsync_fds[0], fileno(o.raw));
    CHECK_EQ_INT(fsync_fds[1], fileno(o.sync));
    text = mm_test_read_file(path, NULL);
    CHECK(text && strcmp(text, "{\"status\": \"complete\"}\n") == 0);
    free(text);
    mm_buf_free(&meta);

    mm_outdir_close(&o); /* nothing left to make durable */
    CHECK_EQ_INT(fsync_calls, 4);
    /* no counters (NULL): nothing to sync, and no error */
    CHECK_EQ_INT(mm_counters_sync(NULL), MM_OK);
    CHECK_EQ_INT(fsync_calls, 4);
}

int main(void) {
    char tmp[] = "/tmp/mm_test_durability_XXXXXX";
    if (!mkdtemp(tmp)) {
        perror("mkdtemp");
        return 1;
    }
    test_launch_writes(tmp);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    if (mm_check_failed == 0 && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp);
    if (mm_check_failed) fprintf(stderr, "scratch files kept in %s\n", tmp);
    return mm_check_summary("durability");
}
