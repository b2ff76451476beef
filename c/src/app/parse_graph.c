/* SPDX-License-Identifier: BSD-3-Clause */
/* parse_graph.c — --graph-file: the file read once on rank 0, while the options are checked
 * (nothing is written before), and its graph checked against the number of ranks.
 *
 * What: the file must be a regular file (not a directory, device or FIFO; a symbolic link is
 *   refused rather than followed: the launch reads what it was named) of at most
 *   MM_GRAPH_TEXT_MAX bytes; its text must be a graph (ops_graph.c says what one is) of as many
 *   ranks as every communicator of the launch. The text travels to the other ranks with the
 *   config; meta.json records its digest and degrees, never its path.
 * Why: everything read from disk is untrusted; a bad file is one line, exit 2, nothing written. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mm_ops.h"
#include "parse_internal.h"

mm_status mm__config_read_graph(mm_config *cfg, char *err, size_t len) {
    memset(&cfg->topo.graph, 0, sizeof cfg->topo.graph);
    cfg->topo.graph_text = NULL;
    if (!cfg->topo.graph_file[0]) return 0;
    const char *path = cfg->topo.graph_file;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            return mm_fail(err, len, "--graph-file %s: is a symbolic link; allowed: the graph file itself", path);
        return mm_fail(err, len, "--graph-file %s: cannot be opened (%s); allowed: a readable graph file",
                        path, strerror(e));
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return mm_fail(err, len, "--graph-file %s: not a regular file; allowed: a graph file (text)", path);
    }
    if (sb.st_size > MM_GRAPH_TEXT_MAX) {
        close(fd);
        return mm_fail(err, len, "--graph-file %s: %lld bytes; allowed: a graph file of at most %d bytes",
                        path, (long long)sb.st_size, MM_GRAPH_TEXT_MAX);
    }
    /* read at most one byte more than allowed: a file that grew since fstat is refused too */
    char *text = malloc((size_t)MM_GRAPH_TEXT_MAX + 1);
    if (!text) {
        close(fd);
        return mm_fail(err, len, "--graph-file %s: no memory for its %d bytes", path, MM_GRAPH_TEXT_MAX);
    }
    size_t got = 0;
    for (;;) {
        ssize_t n = read(fd, text + got, (size_t)MM_GRAPH_TEXT_MAX + 1 - got);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            free(text);
            return mm_fail(err, len, "--graph-file %s: cannot be read (%s)", path, strerror(e));
        }
        if (n == 0 || (got += (size_t)n) > MM_GRAPH_TEXT_MAX) break;
    }
    close(fd);
    if (got > MM_GRAPH_TEXT_MAX) {
        free(text);
        return mm_fail(err, len, "--graph-file %s: more than %d bytes; allowed: a graph file of at most "
                        "%d bytes", path, MM_GRAPH_TEXT_MAX, MM_GRAPH_TEXT_MAX);
    }
    text[got] = '\0';
    char why[512];
    if (mm_graph_check(text, got, &cfg->topo.graph, why, sizeof why) != 0) {
        free(text);
        return mm_fail(err, len, "--graph-file %s: %s", path, why);
    }
    cfg->topo.graph_text = text; /* kept for the launch: freed with the process */
    return 0;
}

mm_status mm__config_check_graph(const mm_config *cfg, int nprocs, char *err, size_t len) {
    if (cfg->topo.graph.nodes == 0 || cfg->topo.graph.nodes == nprocs) return 0;
    return mm_fail(err, len, "--graph-file %s: the graph holds %d ranks, the communicator %d; allowed: "
                    "a graph of one line per rank, %d lines", cfg->topo.graph_file, cfg->topo.graph.nodes, nprocs, nprocs);
}
