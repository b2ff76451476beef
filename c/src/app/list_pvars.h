/* list_pvars.h — `--list-pvars` as text (list_pvars.c). */
#ifndef MM_APP_LIST_PVARS_H
#define MM_APP_LIST_PVARS_H
#include <stdio.h>
#include "mm_counters.h"

/* The table of the library's performance variables (name, class, datatype, binding, elements,
 * readable here or why not, description), as rank 0 filled it (mm_counters_list_pvars). */
void mm_print_pvar_list(FILE *f, const mm_pvar_list *list);

#endif
