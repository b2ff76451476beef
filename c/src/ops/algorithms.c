/* SPDX-License-Identifier: BSD-3-Clause */
/* algorithms.c — the selectable collective algorithms of the running library, from MPI_T.
 *
 * What: every control variable named coll_tuned_<op>_algorithm (Open MPI: its MPI_T enumeration
 * gives value and name of each algorithm; the environment sets it as OMPI_MCA_<name>) or
 * MPIR_CVAR_<OP>_INTRA_ALGORITHM (MPICH: an integer variable without an MPI_T enumeration; its
 * choices are named in its description, which MPICH 4.0 joins without separators, so that a name
 * cannot be told from the end of the text before it: every suffix of the glued word is a
 * candidate (mm_algorithms_candidates) and the library itself says which it knows, since it
 * refuses an unknown value when MPI_T starts (mm_algorithms_probe, run in fresh processes by
 * app/list_algorithms.c); no choice is made up; the environment sets it by name).
 * Why from MPI_T and not from a list of ours: the library is the one source of what it offers,
 * and versions differ (SKaMPI's paper asks for the algorithm choice per machine: Reussner et al.
 * 1998 §5; both libraries expose the choice since).
 * Cost: one pass over the library's control variables (a few hundred). */
#include <ctype.h> /* tolower */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h> /* setenv */
#include <string.h>

#include "mm_algorithms.h"
#include "mm_error.h"

#ifndef MM_SIMGRID /* SimGrid's SMPI has no MPI_T: its simulated library offers no algorithm variable */
static int mm__suffix(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcmp(s + n - m, suffix) == 0;
}

/* The op of a variable's name, or 0 when it is no algorithm variable. */
static int mm__op_of(const char *name, char *op, size_t len, int *open_mpi) {
    const char *ompi = "coll_tuned_", *mpich = "MPIR_CVAR_";
    size_t n = strlen(name);
    if (strncmp(name, ompi, strlen(ompi)) == 0 && mm__suffix(name, "_algorithm")) {
        size_t k = n - strlen(ompi) - strlen("_algorithm");
        if (k == 0 || k >= len) return 0;
        memcpy(op, name + strlen(ompi), k);
        op[k] = '\0';
        *open_mpi = 1;
        return 1;
    }
    if (strncmp(name, mpich, strlen(mpich)) == 0 && mm__suffix(name, "_INTRA_ALGORITHM")) {
        size_t k = n - strlen(mpich) - strlen("_INTRA_ALGORITHM");
        if (k == 0 || k >= len) return 0;
        for (size_t i = 0; i < k; i++) op[i] = (char)tolower((unsigned char)name[strlen(mpich) + i]);
        op[k] = '\0';
        *open_mpi = 0;
        return 1;
    }
    return 0;
}

/* Open MPI: the variable's MPI_T enumeration. */
static void mm__choices_of_enum(MPI_T_enum e, mm_algorithm_var *v) {
    int num = 0, len;
    char ename[256];
    len = (int)sizeof ename;
    if (MPI_T_enum_get_info(e, &num, ename, &len) != MPI_SUCCESS) return;
    for (int i = 0; i < num && v->nchoices < MM_ALG_MAX_CHOICES; i++) {
        char item[MM_ALG_NAME_LEN];
        int value = 0;
        len = (int)sizeof item;
        if (MPI_T_enum_get_item(e, i, &value, item, &len) != MPI_SUCCESS) continue;
        v->values[v->nchoices] = value;
        snprintf(v->names[v->nchoices], MM_ALG_NAME_LEN, "%s", item);
        v->nchoices++;
    }
}

#endif

mm_status mm_algorithms_read(mm_algorithm_var *out, int max, int *n) {
    *n = 0;
#ifdef MM_SIMGRID
    (void)out;
    (void)max;
    return 0;
#else
    int provided, num = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return MM_E_FAILED;
    if (MPI_T_cvar_get_num(&num) != MPI_SUCCESS) {
        MPI_T_finalize();
        return MM_E_FAILED;
    }
    static char desc[8192]; /* MPICH's descriptions run to a few kB */
    for (int i = 0; i < num && *n < max; i++) {
        char name[MM_ALG_NAME_LEN * 2 - 16];
        int name_len = (int)sizeof name, desc_len = (int)sizeof desc, verbosity, bind, scope;
        MPI_Datatype type;
        MPI_T_enum e = MPI_T_ENUM_NULL;
        if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &e, desc, &desc_len, &bind, &scope) !=
            MPI_SUCCESS)
            continue;
        mm_algorithm_var *v = &out[*n];
        memset(v, 0, sizeof *v);
        int open_mpi = 0;
        if (!mm__op_of(name, v->op, sizeof v->op, &open_mpi)) continue;
        snprintf(v->variable, sizeof v->variable, "%s", name);
        snprintf(v->env, sizeof v->env, "%s%s", open_mpi ? "OMPI_MCA_" : "", name);
        v->by_value = open_mpi;
        if (e != MPI_T_ENUM_NULL) mm__choices_of_enum(e, v);
        size_t keep = strlen(desc) < sizeof v->description ? strlen(desc) : sizeof v->description - 1;
        memcpy(v->description, desc, keep);
        v->description[keep] = '\0';
        (*n)++;
    }
    MPI_T_finalize();
    return 0;
#endif
}

static int mm__name_char(char c) {
    return isalnum((unsigned char)c) || c == '_';
}

/* Adds name (len bytes at s) to out unless it is there; returns the new count. */
static int mm__add_candidate(char (*out)[MM_ALG_NAME_LEN], int *group, int n, int max, const char *s, size_t len,
                             int g) {
    if (n >= max || len == 0 || len >= MM_ALG_NAME_LEN) return n;
    char name[MM_ALG_NAME_LEN];
    memcpy(name, s, len);
    name[len] = '\0';
    for (int k = 0; k < n; k++)
        if (strcmp(out[k], name) == 0) return n;
    snprintf(out[n], MM_ALG_NAME_LEN, "%s", name);
    group[n] = g;
    return n + 1;
}

int mm_algorithms_candidates(const char *description, char (*out)[MM_ALG_NAME_LEN], int *group, int max) {
    static const char *const words[] = {"algorithm", "algorithms"};
    int n = 0, g = 0;
    for (const char *p = description; *p && n < max; p++) {
        /* a separator: one or more spaces, '-', a space; the name ends before the spaces */
        if (*p != ' ' || (p > description && p[-1] == ' ')) continue;
        const char *q = p;
        while (*q == ' ') q++;
        if (q[0] != '-' || q[1] != ' ') continue;
        const char *start = p;
        while (start > description && mm__name_char(start[-1])) start--;
        /* first the name after the word that ends most of MPICH's texts ("Force ... algorithm"),
         * then every suffix, shortest first */
        for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
            size_t k = strlen(words[w]);
            if ((size_t)(p - start) > k && strncmp(start, words[w], k) == 0)
                n = mm__add_candidate(out, group, n, max, start + k, (size_t)(p - start) - k, g);
        }
        for (const char *s = p - 1; s >= start; s--) n = mm__add_candidate(out, group, n, max, s, (size_t)(p - s), g);
        g++;
    }
    return n;
}

int mm_algorithms_probe(const char *variable, const char *name, int *value) {
#ifdef MM_SIMGRID
    (void)variable;
    (void)name;
    (void)value;
    return -2;
#else
    if (setenv(variable, name, 1) != 0) return -2;
    int provided = 0;
    int rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    if (rc == MPI_SUCCESS) {
        int index = -1, count = 0;
        MPI_T_cvar_handle h;
        *value = -1;
        if (MPI_T_cvar_get_index(variable, &index) == MPI_SUCCESS &&
            MPI_T_cvar_handle_alloc(index, NULL, &h, &count) == MPI_SUCCESS) {
            if (count == 1) MPI_T_cvar_read(h, value);
            MPI_T_cvar_handle_free(&h);
        }
        MPI_T_finalize();
        return 0;
    }
    /* refused: only a refusal that names this variable says that the name is unknown */
    char text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS || !strstr(text, variable)) return -2;
    return -1;
#endif
}
