/* SPDX-License-Identifier: BSD-3-Clause */
/* nrep_words.c — the words meta.json writes for the enum values of --nrep auto (mm_nrep.h):
 * `nrep_auto.rule` and each test's `stopped_by`. */
#include <stddef.h>

#include "mm_nrep.h"

const char *mm_nrep_rule_name(int rule) {
    switch (rule) {
    case MM_NREP_CI: return "ci";
    case MM_NREP_RSE: return "rse";
    default: return "fixed";
    }
}

const char *mm_stop_reason_name(int reason) {
    switch (reason) {
    case MM_STOP_PRECISION: return "precision";
    case MM_STOP_MAX: return "max";
    case MM_STOP_BUDGET: return "budget";
    default: return NULL;
    }
}
