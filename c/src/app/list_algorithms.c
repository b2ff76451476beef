/* SPDX-License-Identifier: BSD-3-Clause */
/* list_algorithms.c — `--list-algorithms`: rank 0 prints the collective algorithms the running
 * library lets a user select (mm_algorithms.h reads them from MPI_T) as one JSON document:
 * {"algorithms": [{"op", "variable", "env", "set_by": "value|name", "description",
 * "choices_from": "enumeration|library|none", "choices": [{"value", "name"}]}]}.
 *
 * choices: Open MPI's MPI_T enumeration ("enumeration"); for MPICH, whose variables have none,
 * the names of the description that the library itself accepts ("library"): candidates
 * (mm_algorithms_candidates) are set, one per fresh process of this binary that starts MPI_T
 * only (mm_app_algorithm_probe; MPICH parses its variables once per process and refuses an
 * unknown value), until each item of the description has its name.
 * "value" is then the variable's MPI_T value with that name set (what meta.json's
 * mpi.mpi_t.selected records). "none": the names could not be confirmed (no process could be
 * started, or MPI_T failed for another reason); no name is offered then.
 * Cost: one process (~30 ms) per candidate tried: a few per item, 10-30 s for MPICH 4.0's ~45
 * variables. */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mm_algorithms.h"
#include "mm_error.h"
#include "mm_json.h"

extern char **environ;

int mm_app_algorithm_probe(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "mpimeter-bench: %s VARIABLE NAME: the probe process of --list-algorithms (internal)\n",
                MM_ALG_PROBE_FLAG);
        return 2;
    }
    int value = -1;
    int rc = mm_algorithms_probe(argv[2], argv[3], &value);
    if (rc == 0)
        printf("0 %d\n", value);
    else
        printf("%d\n", rc);
    return 0;
}

/* Runs one probe process; its answer (0, -1), or -2 when it could not be run or said so. */
static int mm__probe_process(const char *self, const char *variable, char *name, int *value) {
    char *args[] = {(char *)self, (char *)MM_ALG_PROBE_FLAG, (char *)variable, name, NULL};
    int fds[2];
    if (pipe(fds) != 0) return -2;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    posix_spawn_file_actions_addclose(&actions, fds[1]);
    pid_t pid;
    int spawned = posix_spawn(&pid, self, &actions, NULL, args, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    char line[64] = "";
    size_t got = 0;
    if (spawned == 0) {
        ssize_t r;
        while (got < sizeof line - 1 && ((r = read(fds[0], line + got, sizeof line - 1 - got)) > 0 ||
                                         (r < 0 && errno == EINTR)))
            if (r > 0) got += (size_t)r;
    }
    close(fds[0]);
    line[got] = '\0';
    if (spawned != 0) return -2;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return -2;
    int answer = -2;
    *value = -1;
    if (sscanf(line, "%d %d", &answer, value) < 1 || answer < -2 || answer > 0) return -2;
    return answer;
}

/* MPICH: per "name - text" item of v's description, the first candidate the library accepts
 * that is not a choice yet (a shorter suffix may be another item's name: "ring" and
 * "tsp_ring"), into v's choices. */
static void mm__confirm_choices(const char *self, mm_algorithm_var *v) {
    static char cands[MM_ALG_MAX_CANDIDATES][MM_ALG_NAME_LEN];
    static int group[MM_ALG_MAX_CANDIDATES];
    int n = mm_algorithms_candidates(v->description, cands, group, MM_ALG_MAX_CANDIDATES);
    v->choices_from = MM_ALG_FROM_PROBE;
    for (int i = 0; i < n && v->nchoices < MM_ALG_MAX_CHOICES; i++) {
        if (i > 0 && group[i] == group[i - 1] && v->nchoices > 0 && v->groups[v->nchoices - 1] == group[i])
            continue; /* this item's name is found */
        int known = 0;
        for (int c = 0; c < v->nchoices && !known; c++) known = strcmp(v->names[c], cands[i]) == 0;
        if (known) continue;
        int value = -1;
        int answer = mm__probe_process(self, v->variable, cands[i], &value);
        if (answer == -2) {
            v->nchoices = 0;
            v->choices_from = MM_ALG_FROM_NONE;
            return;
        }
        if (answer < 0) continue;
        v->values[v->nchoices] = value;
        v->groups[v->nchoices] = group[i];
        memcpy(v->names[v->nchoices], cands[i], MM_ALG_NAME_LEN); /* NUL-terminated within */
        v->nchoices++;
    }
}

mm_status mm_app_list_algorithms(FILE *f, const char *argv0, const char *const *ops, int nops) {
    static mm_algorithm_var vars[MM_ALG_MAX_VARS];
    int n = 0;
    int rc = mm_algorithms_read(vars, MM_ALG_MAX_VARS, &n);
    if (rc != 0) return rc;
    /* this binary, for the probe processes (argv[0] may be a bare name found on PATH) */
    static char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len > 0)
        self[len] = '\0';
    else
        snprintf(self, sizeof self, "%s", argv0);
    static const char *const from[] = {"enumeration", "library", "none"};
    mm_buf buf = {0};
    mm_json j;
    mm_json_init(&j, &buf, 1);
    mm_json_begin_object(&j);
    mm_json_key(&j, "algorithms");
    mm_json_begin_array(&j);
    for (int i = 0; i < n; i++) {
        mm_algorithm_var *v = &vars[i];
        int wanted = nops == 0;
        for (int k = 0; k < nops && !wanted; k++) wanted = strcmp(ops[k], v->op) == 0;
        if (!wanted) continue;
        if (!v->by_value) mm__confirm_choices(self, v);
        mm_json_begin_object(&j);
        mm_json_kv_string(&j, "op", v->op);
        mm_json_kv_string(&j, "variable", v->variable);
        mm_json_kv_string(&j, "env", v->env);
        mm_json_kv_string(&j, "set_by", v->by_value ? "value" : "name");
        mm_json_kv_string(&j, "description", v->description);
        mm_json_kv_string(&j, "choices_from", from[v->choices_from]);
        mm_json_key(&j, "choices");
        mm_json_begin_array(&j);
        for (int c = 0; c < v->nchoices; c++) {
            mm_json_begin_object(&j);
            mm_json_kv_int(&j, "value", v->values[c]);
            mm_json_kv_string(&j, "name", v->names[c]);
            mm_json_end_object(&j);
        }
        mm_json_end_array(&j);
        mm_json_end_object(&j);
    }
    mm_json_end_array(&j);
    mm_json_end_object(&j);
    int failed = buf.failed;
    if (!failed) fprintf(f, "%s\n", buf.data);
    mm_buf_free(&buf);
    return failed ? MM_E_NOMEM : 0;
}
