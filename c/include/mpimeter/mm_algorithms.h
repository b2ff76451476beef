/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_algorithms.h — the collective algorithms the running MPI library lets a user select, read
 * from its MPI_T control variables (c/src/ops/algorithms.c): Open MPI's
 * coll_tuned_<op>_algorithm (an MPI_T enumeration; honoured with coll_tuned_use_dynamic_rules),
 * MPICH's MPIR_CVAR_<OP>_INTRA_ALGORITHM (no MPI_T enumeration: its choices are only named in
 * the variable's description, which is kept; the names in it are confirmed by the library
 * itself, which refuses an unknown value when MPI_T starts: mm_algorithms_probe). */
#ifndef MM_ALGORITHMS_H
#define MM_ALGORITHMS_H
#include "mm_error.h"

enum { MM_ALG_MAX_VARS = 64, MM_ALG_MAX_CHOICES = 24, MM_ALG_NAME_LEN = 64 };

typedef struct mm_algorithm_var {
    char op[MM_ALG_NAME_LEN];       /* the collective: "allreduce", "reduce_scatter_block" */
    char variable[MM_ALG_NAME_LEN * 2]; /* the control variable's name */
    char env[MM_ALG_NAME_LEN * 2];  /* the environment variable that sets it */
    int by_value;                   /* 1: set by its value (Open MPI); 0: by name (MPICH) */
    int choices_from;               /* MM_ALG_FROM_*: the enumeration, the library's probe, none */
    int nchoices;                   /* of the MPI_T enumeration; 0 without one (MPICH) */
    int values[MM_ALG_MAX_CHOICES];
    char names[MM_ALG_MAX_CHOICES][MM_ALG_NAME_LEN];
    int groups[MM_ALG_MAX_CHOICES]; /* MPICH: the item of the description a name was found at */
    char description[2048];         /* the variable's own description (truncated) */
} mm_algorithm_var;

/* Where a variable's choices come from ("choices_from" of --list-algorithms). */
enum { MM_ALG_FROM_ENUM = 0, MM_ALG_FROM_PROBE = 1, MM_ALG_FROM_NONE = 2 };
/* at most this many candidate names per description */
enum { MM_ALG_MAX_CANDIDATES = 400 };
/* The first argument that makes mpimeter-bench a probe process (app/list_algorithms.c). */
#define MM_ALG_PROBE_FLAG "--algorithm-probe"

/* Reads the library's algorithm variables (MPI must be initialized; MPI_T is initialized and
 * finalized here). Fills at most max; *n how many. 0, or MM_E_FAILED when MPI_T cannot be read. */
mm_status mm_algorithms_read(mm_algorithm_var *out, int max, int *n);

/* The names a description may hold (MPICH 4.0 joins "name<spaces>- text" items without a
 * separator, so a name is glued to the end of the text before it): before each "<spaces>- "
 * (group[i]: which one, from 0), the suffixes of the run of [A-Za-z0-9_] that ends there: first
 * the one after a leading "algorithm" or "algorithms", then every one, shortest first; no name
 * twice. Only candidates: the library says which of them it knows (mm_algorithms_probe).
 * Returns how many were written (at most max). Pure: no MPI. */
int mm_algorithms_candidates(const char *description, char (*out)[MM_ALG_NAME_LEN], int *group, int max);

/* In a process that has not started MPI nor MPI_T (MPICH parses its variables at the first
 * start only, and keeps what it found even after refusing a value): sets `variable` to `name`
 * and starts MPI_T. 0 when the library accepts it (*value: the variable's MPI_T value then),
 * -1 when it refuses it, -2 when MPI_T fails for a reason that does not name `variable`. */
int mm_algorithms_probe(const char *variable, const char *name, int *value);

#include <stdio.h>
/* --list-algorithms (app/list_algorithms.c): prints them as JSON to f, only the variables of
 * the nops operations `ops` when nops > 0 (MPICH's names confirmed by probe processes of this
 * binary: argv0 when /proc/self/exe cannot be read). 0, or an MM_E_* code. */
mm_status mm_app_list_algorithms(FILE *f, const char *argv0, const char *const *ops, int nops);
/* The probe process: argv = {self, MM_ALG_PROBE_FLAG, variable, name}; prints "0 <value>",
 * "-1" or "-2" (mm_algorithms_probe) and returns 0; 2 on a bad argv. */
int mm_app_algorithm_probe(int argc, char **argv);

#endif
