/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_nrep.h — the values of the two enums of --nrep auto that the launch record carries (the
 * rule a test ran under, why it stopped) and the words meta.json writes for them
 * (output/nrep_words.c). Below bench: the stopping rule (bench/adaptive.c, mm_adaptive.h) sets
 * the values, output renders the words without calling up into the rule. */
#ifndef MM_NREP_H
#define MM_NREP_H

enum { MM_NREP_FIXED = 0, MM_NREP_CI = 1, MM_NREP_RSE = 2 };
/* Why a test stopped; MM_STOP_CONTINUE: it did not (yet). */
enum { MM_STOP_CONTINUE = 0, MM_STOP_PRECISION = 1, MM_STOP_MAX = 2, MM_STOP_BUDGET = 3 };

/* "ci", "rse" ("fixed" for MM_NREP_FIXED); "precision", "max", "budget" (NULL for CONTINUE). */
const char *mm_nrep_rule_name(int rule);
const char *mm_stop_reason_name(int reason);

#endif
