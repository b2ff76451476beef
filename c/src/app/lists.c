/* SPDX-License-Identifier: BSD-3-Clause */
/* lists.c — prints `--list-ops` (the operation table, ops/ops_table.c) and `--list-pvars` (the
 * record of the library's performance variables that the counters fill, counters/pvar_list.c). */
#include "lists.h"

#include "mm_ops.h"

void mm_print_ops_list(FILE *f) {
    for (size_t i = 0; i < mm_ops_count; i++) {
        const mm_op *op = &mm_ops_table[i];
        char why[256];
        if (mm_op_available(op, why, sizeof why))
            fprintf(f, "%-21s %s [%s]\n", op->name, op->pattern, op->constraints);
        else
            fprintf(f, "%-21s %s [%s] [not available: %s]\n", op->name, op->pattern, op->constraints,
                    why);
    }
}

void mm_print_pvar_list(FILE *f, const mm_pvar_list *l) {
    if (!l->has_mpit) {
        fprintf(f, "MPI library: %s\nperformance variables (MPI_T): none (the library offers "
                   "no MPI_T interface)\n", l->library);
        return;
    }
    int readable = 0;
    for (int i = 0; i < l->n; i++) readable += l->entries[i].readable;
    fprintf(f, "MPI library: %s\nperformance variables (MPI_T): %d, %d of them readable by "
               "mpimeter here", l->library, l->n, readable);
    if (l->nindices > l->n)
        fprintf(f, " (%d more indices are not valid: variables of components the library "
                   "closed)", l->nindices - l->n);
    fprintf(f, "\n");
    if (l->n > 0) {
        fprintf(f, "%-36s  %-13s  %-18s  %-12s  %-8s  %s\n", "name", "class", "datatype", "binding",
                "elements", "readable / description");
    }
    for (int i = 0; i < l->n; i++) {
        const mm_pvar_entry *e = &l->entries[i];
        char elements[16] = "-";
        if (e->readable) snprintf(elements, sizeof elements, "%d", e->elements);
        fprintf(f, "%-36s  %-13s  %-18s  %-12s  %-8s  %s%s — %s\n", e->name, e->klass, e->datatype,
                e->binding, elements, e->readable ? "yes" : "no: ", e->readable ? "" : e->why,
                e->description);
    }
    if (l->n == 0)
        fprintf(f, "(none: --mpit-pvars all records that no variable was read)\n");
}
