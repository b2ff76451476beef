/* SPDX-License-Identifier: BSD-3-Clause */
/* lists.h — `--list-ops` and `--list-pvars` as text (lists.c), from the records the modules
 * below keep: the operation table (mm_ops.h) and the library's performance variables as the
 * counters find them (mm_pvar_list, mm_counters.h). */
#ifndef MM_APP_LISTS_H
#define MM_APP_LISTS_H
#include <stdio.h>
#include "mm_counters.h"

/* --list-ops: one line per operation, name first, then its pattern and [constraints]. */
void mm_print_ops_list(FILE *f);

/* --list-pvars: the table of the library's performance variables (name, class, datatype,
 * binding, elements, readable here or why not, description), as rank 0 filled it
 * (mm_counters_list_pvars). */
void mm_print_pvar_list(FILE *f, const mm_pvar_list *list);

#endif
