/* SPDX-License-Identifier: BSD-3-Clause */
/* types.c — the datatypes (--datatype) and reduction operations (--reduce-op) an operation can
 * use, looked up by name, and which pairs MPI defines.
 *
 * Why: the element type changes what a collective costs (reductions compute on it), and MPI
 * leaves some op/type pairs undefined — MPI_SUM on MPI_BYTE, MPI_BOR on MPI_FLOAT, anything on
 * MPI_CHAR — where libraries answer with an error at the first call or, worse, silently do
 * something. We refuse those pairs once, when the options are checked, with the rule.
 * Sizes are stored here (sizeof of the C type) so that lookups work before MPI_Init.
 * Cost: linear scans of tables of 6 and 7 rows.
 * Paper: MPI-3.1 standard §5.9.2 (predefined reduction operations and the datatypes each is
 * defined for); the datatype as a benchmark parameter follows SKaMPI (Reussner et al. 1998). */
#include <stdio.h>
#include <string.h>

#include "mm_ops.h"
#include "ops_internal.h"
#include "mm_error.h"

typedef struct mm__datatype_row {
    const char *name;
    MPI_Datatype datatype;
    int size;
    mm__datatype_kind kind;
} mm__datatype_row;

static const mm__datatype_row mm__datatypes[] = {
    {"byte", MPI_BYTE, 1, MM__KIND_BYTE},
    {"char", MPI_CHAR, (int)sizeof(char), MM__KIND_CHAR},
    {"int", MPI_INT, (int)sizeof(int), MM__KIND_INTEGER},
    {"long", MPI_LONG, (int)sizeof(long), MM__KIND_INTEGER},
    {"float", MPI_FLOAT, (int)sizeof(float), MM__KIND_FLOAT},
    {"double", MPI_DOUBLE, (int)sizeof(double), MM__KIND_FLOAT},
};
#define MM__NDATATYPES (sizeof mm__datatypes / sizeof *mm__datatypes)

typedef enum {
    MM__OP_ARITHMETIC, /* sum, prod */
    MM__OP_ORDER,      /* max, min */
    MM__OP_BITWISE,    /* band, bor, bxor */
} mm__reduce_class;

typedef struct mm__reduce_row {
    const char *name;
    MPI_Op op;
    mm__reduce_class cls;
} mm__reduce_row;

static const mm__reduce_row mm__reduce_ops[] = {
    {"sum", MPI_SUM, MM__OP_ARITHMETIC},  {"max", MPI_MAX, MM__OP_ORDER},
    {"min", MPI_MIN, MM__OP_ORDER},       {"prod", MPI_PROD, MM__OP_ARITHMETIC},
    {"band", MPI_BAND, MM__OP_BITWISE},   {"bor", MPI_BOR, MM__OP_BITWISE},
    {"bxor", MPI_BXOR, MM__OP_BITWISE},
};
#define MM__NREDUCE_OPS (sizeof mm__reduce_ops / sizeof *mm__reduce_ops)

static const mm__datatype_row *mm__find_datatype(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < MM__NDATATYPES; i++)
        if (strcmp(mm__datatypes[i].name, name) == 0) return &mm__datatypes[i];
    return NULL;
}

static const mm__reduce_row *mm__find_reduce_op(const char *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < MM__NREDUCE_OPS; i++)
        if (strcmp(mm__reduce_ops[i].name, name) == 0) return &mm__reduce_ops[i];
    return NULL;
}

int mm_datatype_lookup(const char *name, MPI_Datatype *dt, int *size) {
    const mm__datatype_row *row = mm__find_datatype(name);
    if (!row) return 0;
    if (dt) *dt = row->datatype;
    if (size) *size = row->size;
    return 1;
}

/* Kept in table order; test_ops.c checks that the two agree. */
const char *mm_datatype_names(void) { return "byte, char, int, long, float, double"; }

int mm_reduce_op_lookup(const char *name, MPI_Op *op) {
    const mm__reduce_row *row = mm__find_reduce_op(name);
    if (!row) return 0;
    if (op) *op = row->op;
    return 1;
}

const char *mm_reduce_op_names(void) { return "sum, max, min, prod, band, bor, bxor"; }

const char *mm_datatype_at(size_t i, int *size, const char **kind) {
    static const char *const kinds[] = {"unknown", "byte", "char", "integer", "float"};
    if (i >= MM__NDATATYPES) return NULL;
    if (size) *size = mm__datatypes[i].size;
    if (kind) *kind = kinds[mm__datatypes[i].kind];
    return mm__datatypes[i].name;
}

const char *mm_reduce_op_at(size_t i) {
    return i < MM__NREDUCE_OPS ? mm__reduce_ops[i].name : NULL;
}

mm__datatype_kind mm__datatype_kind_of(MPI_Datatype dt) {
    for (size_t i = 0; i < MM__NDATATYPES; i++)
        if (mm__datatypes[i].datatype == dt) return mm__datatypes[i].kind;
    return MM__KIND_UNKNOWN;
}

mm_status mm_reduce_op_check(const char *op_name, const char *datatype_name, char *why, size_t len) {
    const mm__reduce_row *op = mm__find_reduce_op(op_name);
    const mm__datatype_row *dt = mm__find_datatype(datatype_name);
    if (!op) {
        snprintf(why, len, "unknown reduction op '%s'; allowed: %s", op_name ? op_name : "(null)",
                 mm_reduce_op_names());
        return MM_E_INPUT;
    }
    if (!dt) {
        snprintf(why, len, "unknown datatype '%s'; allowed: %s",
                 datatype_name ? datatype_name : "(null)", mm_datatype_names());
        return MM_E_INPUT;
    }
    switch (dt->kind) {
    case MM__KIND_CHAR:
        snprintf(why, len,
                 "MPI defines no reduction on char (MPI_CHAR holds printable characters; "
                 "MPI-3.1 §5.9.2); use byte for band/bor/bxor or int/long for any op");
        return MM_E_INPUT;
    case MM__KIND_BYTE:
        if (op->cls == MM__OP_BITWISE) return 0;
        snprintf(why, len,
                 "'%s' is not defined for byte: MPI allows only the bitwise ops band, bor, bxor "
                 "on MPI_BYTE (MPI-3.1 §5.9.2); use --datatype int, long, float or double",
                 op->name);
        return MM_E_INPUT;
    case MM__KIND_FLOAT:
        if (op->cls != MM__OP_BITWISE) return 0;
        snprintf(why, len,
                 "'%s' is not defined for %s: MPI allows the bitwise ops band, bor, bxor only on "
                 "integer types and byte (MPI-3.1 §5.9.2); use --datatype int, long or byte",
                 op->name, dt->name);
        return MM_E_INPUT;
    case MM__KIND_INTEGER:
        return 0;
    case MM__KIND_UNKNOWN:
        break;
    }
    snprintf(why, len, "internal: datatype '%s' has no kind", dt->name);
    return MM_E_INPUT;
}
