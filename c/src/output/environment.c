/* SPDX-License-Identifier: BSD-3-Clause */
/* environment.c — the environment variables that meta.json records, secrets redacted.
 *
 * What: a variable is recorded when its name starts with one of mm_env_record_prefixes — an
 * allow-list of the prefixes of the MPI libraries, process managers, fabrics, OpenMP and the batch
 * system, whose variables change how MPI behaves. Its value is written as "<redacted>" when its
 * name contains one of mm_env_secret_words in any case (PASS also catches PASSWORD and
 * PASSPHRASE, TOK TOKEN, CRED CREDENTIAL, ...): a broad rule on purpose, since redacting a harmless
 * value costs little and leaking a credential costs a lot.
 * Why: tuning variables change results and must be reported (Hoefler & Belli 2015, rule 9), but a
 * launch folder is shared, so credentials must never end up in it. Both lists are published by
 * --describe, so that the Python half shows and stores values by the same rule.
 * Cost: O(n log n) in the number of variables (sorted by name for a stable output). */
#include <stdlib.h>
#include <string.h>

#include "mm_output.h"

const char *const mm_env_record_prefixes[] = {
    "OMPI_", "OPAL_", "PRTE_", "PMIX_", "ORTE_",                 /* Open MPI, PMIx */
    "MPICH_", "MPIR_", "MPIEXEC_", "HYDRA_", "PMI_",            /* MPICH, Hydra, PMI */
    "I_MPI_", "MV2_", "MPI_", "MPIMETER_",                       /* Intel MPI, MVAPICH, generic, ours */
    "UCX_", "FI_", "PSM2_", "HFI_", "NCCL_",                     /* fabrics */
    "OMP_", "GOMP_", "KMP_",                                     /* OpenMP */
    "SLURM_", "SRUN_", "SBATCH_",                                /* Slurm */
    NULL,
};

const char *const mm_env_secret_words[] = {
    "PASS", "PWD", "TOK", "AUTH", "CRED", "SECRET", "KEY", "PRIVATE", "CERT", "COOKIE", "SALT",
    "SIGNATURE", NULL,
};

/* Case-insensitive "does haystack contain needle" (needle in upper case, ASCII). */
static int mm__contains_upper(const char *haystack, const char *needle) {
    size_t n = strlen(needle);
    for (const char *h = haystack; *h; h++) {
        size_t i = 0;
        while (i < n && h[i]) {
            char c = h[i];
            if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
            if (c != needle[i]) break;
            i++;
        }
        if (i == n) return 1;
    }
    return 0;
}

int mm_env_name_is_secret(const char *name) {
    if (!name) return 0;
    for (size_t i = 0; mm_env_secret_words[i]; i++)
        if (mm__contains_upper(name, mm_env_secret_words[i])) return 1;
    return 0;
}

int mm_env_name_is_recorded(const char *name) {
    if (!name) return 0;
    for (size_t i = 0; mm_env_record_prefixes[i]; i++)
        if (strncmp(name, mm_env_record_prefixes[i], strlen(mm_env_record_prefixes[i])) == 0)
            return 1;
    return 0;
}

/* One "NAME=value" entry of envp, with its position for a stable order among duplicates. */
typedef struct mm__env_entry {
    const char *text;
    size_t name_len;
    size_t position;
} mm__env_entry;

static int mm__env_entry_cmp(const void *pa, const void *pb) {
    const mm__env_entry *a = pa, *b = pb;
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int c = memcmp(a->text, b->text, n);
    if (c) return c;
    if (a->name_len != b->name_len) return a->name_len < b->name_len ? -1 : 1;
    return a->position < b->position ? -1 : a->position > b->position;
}

void mm_environment_json(mm_buf *out, char **envp) {
    size_t count = 0;
    for (size_t i = 0; envp && envp[i]; i++) count++;
    mm__env_entry *e = calloc(count ? count : 1, sizeof *e);
    if (!e) {
        mm_buf_append(out, "null", 4);
        return;
    }
    size_t n = 0;
    char name[512];
    for (size_t i = 0; i < count; i++) {
        const char *eq = strchr(envp[i], '=');
        if (!eq || eq == envp[i] || (size_t)(eq - envp[i]) >= sizeof name) continue;
        size_t len = (size_t)(eq - envp[i]);
        memcpy(name, envp[i], len);
        name[len] = '\0';
        if (!mm_env_name_is_recorded(name)) continue;
        e[n].text = envp[i];
        e[n].name_len = len;
        e[n].position = i;
        n++;
    }
    qsort(e, n, sizeof *e, mm__env_entry_cmp);
    mm_json j;
    mm_json_init(&j, out, 0); /* compact: it is pasted into meta.json as one value */
    mm_json_begin_object(&j);
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && e[i].name_len == e[i - 1].name_len &&
            memcmp(e[i].text, e[i - 1].text, e[i].name_len) == 0)
            continue; /* a duplicate name: the first one wins, as getenv() does */
        memcpy(name, e[i].text, e[i].name_len);
        name[e[i].name_len] = '\0';
        const char *value = e[i].text + e[i].name_len + 1;
        mm_json_kv_string(&j, name, mm_env_name_is_secret(name) ? "<redacted>" : value);
    }
    mm_json_end_object(&j);
    free(e);
}
