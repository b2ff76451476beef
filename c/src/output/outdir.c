/* SPDX-License-Identifier: BSD-3-Clause */
/* outdir.c — the launch folder on disk (docs/FORMAT.md): checking --out before anything is
 * measured, creating it, opening raw.csv/sync.csv with their headers, and replacing meta.json
 * atomically.
 *
 * Why: a launch must never overwrite earlier results by accident (exit code 2 with a message
 * naming --out, before any MPI work), and a reader must never see a half-written meta.json: it
 * is written to a temporary file in the same folder and renamed over meta.json (atomic on POSIX
 * file systems). The launch's final write also makes it durable: raw.csv, sync.csv and the
 * temporary file are fsync'd before the rename, the folder after it, so the rename survives a
 * machine crash; the checkpoints before it are not fsync'd (mm_output.h, mm_meta_write).
 * Cost: a few system calls; four fsyncs per launch; mm_outdir_check creates nothing (writability
 * is probed with access() on the nearest existing ancestor). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "mm_error.h"
#include "mm_output.h"

#define MM__SYNC_HEADER "rank,phase,kind,peer,local_ns,offset_ns,rtt_ns\n"

/* 1 when the folder holds anything besides . and .., 0 when empty, -1 when unreadable. */
static int mm__dir_not_empty(const char *path) {
    DIR *d = opendir(path);
    if (!d) return -1;
    int found = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            found = 1;
            break;
        }
    }
    closedir(d);
    return found;
}

/* Writes the parent of `path` into out ("." for a bare name, "/" for "/x"). */
static void mm__parent_of(const char *path, char *out, size_t len) {
    snprintf(out, len, "%s", path);
    size_t n = strlen(out);
    while (n > 1 && out[n - 1] == '/') out[--n] = '\0'; /* trailing slashes */
    char *slash = strrchr(out, '/');
    if (!slash)
        snprintf(out, len, ".");
    else if (slash == out)
        out[1] = '\0';
    else
        *slash = '\0';
}

/* May we create folders in dir? access() answers "yes" for root even on read-only or pseudo
 * file systems (/proc), so an empty probe folder is created and removed (nothing is left
 * behind). 0, or MM_E_FAILED with the reason in why — taken from errno right at the call that failed,
 * before anything else can overwrite it. */
static mm_status mm__can_create_in(const char *dir, char *why, size_t why_len) {
    if (access(dir, W_OK | X_OK) != 0) {
        int e = errno;
        snprintf(why, why_len, "no permission to write in %s (%s)", dir, strerror(e));
        return MM_E_FAILED;
    }
    char probe[MM_PATH_LEN + 32];
    snprintf(probe, sizeof probe, "%s/.mpimeter-probe-XXXXXX", dir);
    if (!mkdtemp(probe)) {
        int e = errno;
        /* /proc answers ENOENT for a folder that exists: say what that means */
        snprintf(why, why_len, "cannot create a folder in %s (%s%s)", dir, strerror(e),
                 e == ENOENT ? ": a pseudo file system that allows no new folders" : "");
        return MM_E_FAILED;
    }
    rmdir(probe);
    return 0;
}

mm_status mm_outdir_check(const char *path, int force, char *err, size_t err_len) {
    if (!path || !*path) {
        snprintf(err, err_len, "--out is empty; give the folder to write the launch into");
        return MM_E_INPUT;
    }
    if (strlen(path) + 32 >= MM_PATH_LEN) {
        snprintf(err, err_len, "--out is too long (%zu characters; at most %d)", strlen(path),
                 MM_PATH_LEN - 32);
        return MM_E_INPUT;
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, err_len, "--out %s exists and is not a folder; choose a new folder",
                     path);
            return MM_E_INPUT;
        }
        int not_empty = mm__dir_not_empty(path); /* errno is opendir's when it fails */
        if (not_empty < 0) {
            snprintf(err, err_len, "--out %s cannot be read (%s)", path, strerror(errno));
            return MM_E_INPUT;
        }
        if (not_empty && !force) {
            snprintf(err, err_len,
                     "--out %s exists and is not empty; choose a new folder or pass --force",
                     path);
            return MM_E_INPUT;
        }
        char why[MM_PATH_LEN + 128];
        if (mm__can_create_in(path, why, sizeof why) != 0) {
            snprintf(err, err_len, "--out %s is not writable: %s", path, why);
            return MM_E_INPUT;
        }
        return 0;
    }
    if (errno != ENOENT) {
        /* ENOTDIR: a component is a file; EACCES: a component is not searchable; ... */
        snprintf(err, err_len, "--out %s cannot be used (%s)", path, strerror(errno));
        return MM_E_INPUT;
    }
    /* Walk up to the nearest existing ancestor: it must be a folder we may write into. */
    char ancestor[MM_PATH_LEN], up[MM_PATH_LEN];
    mm__parent_of(path, ancestor, sizeof ancestor);
    while (stat(ancestor, &st) != 0) {
        int why = errno;
        mm__parent_of(ancestor, up, sizeof up);
        if (why != ENOENT || strcmp(up, ancestor) == 0) { /* no ancestor to fall back on */
            snprintf(err, err_len, "cannot create --out %s: %s cannot be used (%s)", path,
                     ancestor, strerror(why));
            return MM_E_INPUT;
        }
        memcpy(ancestor, up, sizeof ancestor);
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, err_len, "cannot create --out %s: %s is not a folder", path, ancestor);
        return MM_E_INPUT;
    }
    char why[MM_PATH_LEN + 128];
    if (mm__can_create_in(ancestor, why, sizeof why) != 0) {
        snprintf(err, err_len, "cannot create --out %s: %s", path, why);
        return MM_E_INPUT;
    }
    return 0;
}

/* mkdir -p with mode 0777 (minus umask). 0 or MM_E_FAILED with errno set. */
static mm_status mm__mkdir_p(const char *path) {
    char tmp[MM_PATH_LEN];
    snprintf(tmp, sizeof tmp, "%s", path);
    size_t n = strlen(tmp);
    while (n > 1 && tmp[n - 1] == '/') tmp[--n] = '\0';
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return MM_E_FAILED;
        *p = '/';
    }
    if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return MM_E_FAILED;
    struct stat st;
    if (stat(tmp, &st) != 0) return MM_E_FAILED;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return MM_E_FAILED;
    }
    return 0;
}

static FILE *mm__open_with_header(const char *dir, const char *name, const char *header,
                                  char *err, size_t err_len) {
    char file[MM_PATH_LEN + 32];
    snprintf(file, sizeof file, "%s/%s", dir, name);
    FILE *f = fopen(file, "w"); /* truncates what a forced earlier launch left */
    if (!f) {
        snprintf(err, err_len, "cannot create %s (%s)", file, strerror(errno));
        return NULL;
    }
    if (fputs(header, f) == EOF || fflush(f) != 0) {
        snprintf(err, err_len, "cannot write %s (%s)", file, strerror(errno));
        fclose(f);
        return NULL;
    }
    return f;
}

mm_status mm_outdir_open(mm_outdir *o, const char *path, char *err, size_t err_len) {
    memset(o, 0, sizeof *o);
    if (!path || !*path || strlen(path) + 32 >= MM_PATH_LEN) {
        snprintf(err, err_len, "--out is empty or too long");
        return MM_E_FAILED;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    if (mm__mkdir_p(path) != 0) {
        snprintf(err, err_len, "cannot create --out %s (%s)", path, strerror(errno));
        return MM_E_FAILED;
    }
    /* With --force on a used folder: an old meta.json must not describe the new raw.csv. */
    char file[MM_PATH_LEN + 32];
    snprintf(file, sizeof file, "%s/meta.json", path);
    if (access(file, F_OK) == 0 && truncate(file, 0) != 0) {
        snprintf(err, err_len, "cannot truncate %s (%s)", file, strerror(errno));
        return MM_E_FAILED;
    }
    snprintf(file, sizeof file, "%s/.meta.json.tmp", path);
    (void)unlink(file); /* a leftover of a killed launch, if any */
    o->raw = mm__open_with_header(path, "raw.csv", MM_RAW_HEADER, err, err_len);
    if (!o->raw) return MM_E_FAILED;
    o->sync = mm__open_with_header(path, "sync.csv", MM__SYNC_HEADER, err, err_len);
    if (!o->sync) {
        fclose(o->raw);
        o->raw = NULL;
        return MM_E_FAILED;
    }
    return 0;
}

void mm_outdir_close(mm_outdir *o) {
    if (o->raw) fclose(o->raw); /* fclose flushes */
    if (o->sync) fclose(o->sync);
    o->raw = o->sync = NULL;
}

/* Flushes stream f and fsyncs it (NULL: nothing). MM_OK, or MM_E_FAILED with errno; EINVAL/EROFS
 * (a pipe or a special file: nothing to make durable) count as done. */
static mm_status mm__flush_durable(FILE *f) {
    if (!f) return MM_OK;
    if (fflush(f) != 0) return MM_E_FAILED;
    if (fsync(fileno(f)) != 0 && errno != EINVAL && errno != EROFS) return MM_E_FAILED;
    return MM_OK;
}

mm_status mm_outdir_write_meta(mm_outdir *o, const mm_buf *meta, mm_meta_write how) {
    if (meta->failed) { /* rendered out of memory: an incomplete meta.json is never written */
        errno = ENOMEM;
        return MM_E_FAILED;
    }
    /* the rows meta.json lists are on disk before the meta.json that lists them */
    if (how == MM_META_FINAL && (mm__flush_durable(o->raw) != 0 || mm__flush_durable(o->sync) != 0))
        return MM_E_FAILED;
    char tmp[MM_PATH_LEN + 32], dst[MM_PATH_LEN + 32];
    snprintf(tmp, sizeof tmp, "%s/.meta.json.tmp", o->path);
    snprintf(dst, sizeof dst, "%s/meta.json", o->path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) return MM_E_FAILED;
    const char *p = meta->data ? meta->data : "";
    size_t left = meta->data ? meta->len : 0;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR) continue;
            goto fail;
        }
        p += w;
        left -= (size_t)w;
    }
    if (meta->len == 0 || meta->data[meta->len - 1] != '\n') {
        if (write(fd, "\n", 1) != 1) goto fail;
    }
    if (how == MM_META_FINAL && fsync(fd) != 0) goto fail;
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, dst) != 0) goto fail;
    if (how != MM_META_FINAL) return 0;
    /* Make the rename durable: fsync the folder (best effort: some file systems refuse). */
    int dfd = open(o->path, O_RDONLY | O_DIRECTORY);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    return 0;
fail: {
    int saved = errno;
    if (fd >= 0) close(fd);
    unlink(tmp);
    errno = saved;
    return MM_E_FAILED;
}
}
