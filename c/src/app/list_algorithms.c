/* list_algorithms.c — `--list-algorithms`: rank 0 prints the collective algorithms the running
 * library lets a user select (mm_algorithms.h reads them from MPI_T) as one JSON document:
 * {"algorithms": [{"op", "variable", "env", "set_by": "value|name", "description", "choices":
 * [{"value", "name"}]}]} (choices: the variable's MPI_T enumeration; empty without one). */
#include <stdio.h>

#include "mm_algorithms.h"
#include "mm_error.h"
#include "mm_json.h"

int mm_app_list_algorithms(FILE *f) {
    static mm_algorithm_var vars[MM_ALG_MAX_VARS];
    int n = 0;
    int rc = mm_algorithms_read(vars, MM_ALG_MAX_VARS, &n);
    if (rc != 0) return rc;
    mm_buf buf = {0};
    mm_json j;
    mm_json_init(&j, &buf, 1);
    mm_json_begin_object(&j);
    mm_json_key(&j, "algorithms");
    mm_json_begin_array(&j);
    for (int i = 0; i < n; i++) {
        const mm_algorithm_var *v = &vars[i];
        mm_json_begin_object(&j);
        mm_json_kv_string(&j, "op", v->op);
        mm_json_kv_string(&j, "variable", v->variable);
        mm_json_kv_string(&j, "env", v->env);
        mm_json_kv_string(&j, "set_by", v->by_value ? "value" : "name");
        mm_json_kv_string(&j, "description", v->description);
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
