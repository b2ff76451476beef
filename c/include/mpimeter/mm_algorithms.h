/* mm_algorithms.h — the collective algorithms the running MPI library lets a user select, read
 * from its MPI_T control variables (c/src/ops/algorithms.c): Open MPI's
 * coll_tuned_<op>_algorithm (an MPI_T enumeration; honoured with coll_tuned_use_dynamic_rules),
 * MPICH's MPIR_CVAR_<OP>_INTRA_ALGORITHM (no MPI_T enumeration: its choices are only named in
 * the variable's description, which is kept). */
#ifndef MM_ALGORITHMS_H
#define MM_ALGORITHMS_H

enum { MM_ALG_MAX_VARS = 64, MM_ALG_MAX_CHOICES = 24, MM_ALG_NAME_LEN = 64 };

typedef struct mm_algorithm_var {
    char op[MM_ALG_NAME_LEN];       /* the collective: "allreduce", "reduce_scatter_block" */
    char variable[MM_ALG_NAME_LEN * 2]; /* the control variable's name */
    char env[MM_ALG_NAME_LEN * 2];  /* the environment variable that sets it */
    int by_value;                   /* 1: set by its value (Open MPI); 0: by name (MPICH) */
    int nchoices;                   /* of the MPI_T enumeration; 0 without one (MPICH) */
    int values[MM_ALG_MAX_CHOICES];
    char names[MM_ALG_MAX_CHOICES][MM_ALG_NAME_LEN];
    char description[2048];         /* the variable's own description (truncated) */
} mm_algorithm_var;

/* Reads the library's algorithm variables (MPI must be initialized; MPI_T is initialized and
 * finalized here). Fills at most max; *n how many. 0, or MM_E_FAILED when MPI_T cannot be read. */
int mm_algorithms_read(mm_algorithm_var *out, int max, int *n);

#include <stdio.h>
/* --list-algorithms (app/list_algorithms.c): prints them as JSON to f. 0, or an MM_E_* code. */
int mm_app_list_algorithms(FILE *f);

#endif
