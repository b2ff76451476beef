/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_counters.h — per-repetition counters: MPI_T performance variables of the MPI library and
 * hardware counters through PAPI or in a LIKWID marker region, read before and after every
 * repetition outside the timed region, their deltas written per rank and repetition to
 * counters.csv (docs/FORMAT.md).
 *
 * Roth 2021 §4.2–4.3 and §4.6 explain run-time variability by such counters, recorded per
 * iteration and rank and correlated with run time and with the categories of §4.5. One variant
 * per source behind a small interface (c/src/counters/: src_mpit.c, src_papi.c, src_likwid.c); the context of
 * a launch (counters.c) is created once, its handles once per test, and the loop (bench/loop.c)
 * calls two hooks that are no-ops when counters are off. */
#ifndef MM_COUNTERS_H
#define MM_COUNTERS_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "mm_test.h"
#include "mm_config.h"
#include "mm_json.h"
#include "mm_timer.h"

/* counters.csv's header (counters format 1). */
#define MM_COUNTERS_HEADER "test,rank,rep,metric,value\n"
#define MM_COUNTERS_FILE "counters.csv"

/* The name of source i of counters, in the order a launch reads them ("mpi_t", "papi", "likwid":
 * meta.json's counters.metrics[].source), or NULL past the last: --describe lists them. */
const char *mm_counter_source_name(size_t i);

/* ---- checks of the options (rank 0, no MPI: config.c) ---- */

/* The syntax of --mpit-pvars / --papi: names separated by commas (no empty item, none twice, at
 * most MM_MAX_COUNTERS, each 1 .. MM_COUNTER_NAME_LEN - 1 characters without spaces, quotes or
 * control characters); `all` alone where allow_all. 0, or MM_E_INPUT with one message in err. */
mm_status mm_counters_check_names(const char *option, const char *text, int allow_all, char *err,
                            size_t len);
/* Was this binary built with PAPI? And PAPI's version ("7.0.0.0"; "" without). */
int mm_papi_built(void);
void mm_papi_version(char *out, size_t len);
/* --papi EVENTS on this host, without MPI: PAPI in the build, every name an event PAPI knows,
 * hardware counters available (PAPI's own component check), the events countable together.
 * 0, or MM_E_INPUT with one message naming the event and the reason. */
mm_status mm_papi_check(const char *events, char *err, size_t len);
/* Was this binary built with LIKWID? And LIKWID's version ("5.2.2"; "" without). */
int mm_likwid_built(void);
void mm_likwid_version(char *out, size_t len);
/* --likwid GROUP in this process: LIKWID in the build, the process started by likwid-perfctr -m
 * (or likwid-mpirun -m) with that same group, its marker API started and mpimeter's region
 * registered (the first call starts it; the launch's counters then read it). 0, or MM_E_INPUT
 * with one message saying what failed and what to do. */
mm_status mm_likwid_check(const char *group, char *err, size_t len);

/* ---- after MPI_Init, before the launch folder exists (main.c) ---- */

/* Collective. Resolves --mpit-pvars on rank 0 (`all`: every performance variable that can be
 * read here; names: each must exist, be numeric, be bound to nothing or to a communicator, and
 * survive a trial read in a probe process) into cfg->counters.counter_pvars on every rank, and checks
 * --papi and --likwid on every rank (each host's own counters, each rank's own likwid-perfctr). 0, or MM_E_INPUT with one message on rank 0; every
 * rank returns the same; MM_E_FAILED (mm_error.h) with the message on every rank when an MPI
 * call fails. Nothing is done without counters. */
mm_status mm_counters_resolve(mm_config *cfg, MPI_Comm comm, char *err, size_t len);

/* --list-pvars: every performance variable the library offers, as a record (app/ prints it). */
#define MM_PVAR_WHY_LEN 160
typedef struct mm_pvar_entry {
    char name[MM_COUNTER_NAME_LEN];
    char description[256];
    const char *klass, *datatype, *binding; /* words (static) */
    int readable;                           /* its trial read passed */
    int elements;                           /* values one read returns, when readable */
    char why[MM_PVAR_WHY_LEN];              /* why not, when not readable */
} mm_pvar_entry;

typedef struct mm_pvar_list {
    char library[256]; /* the first line of MPI_Get_library_version, one line */
    int has_mpit;      /* 0: the library offers no MPI_T interface (no entries) */
    int nindices, n;   /* indices the library has; valid variables among them (entries) */
    mm_pvar_entry *entries;
} mm_pvar_list;

/* Rank 0 fills `list` (each valid index described, the readable-looking ones tried in a probe
 * process); the other ranks leave it empty. 0, or MM_E_NOMEM (mm_error.h). Free it with
 * mm_pvar_list_free. */
int mm_counters_list_pvars(mm_pvar_list *list, MPI_Comm comm);
void mm_pvar_list_free(mm_pvar_list *list);

/* ---- the launch (bench/launch.c, launch_tests.c, loop.c) ---- */

typedef struct mm_counters mm_counters;

/* The launch's context for cfg (NULL, with err empty, when counters are off; NULL with a message
 * when they cannot be set up). cap: the most repetitions of a test. Local. */
mm_counters *mm_counters_open(const mm_config *cfg, MPI_Comm comm, const mm_timer *timer,
                              long cap, char *err, size_t len);
void mm_counters_close(mm_counters *c);
/* The number of counters read per repetition (0: `--mpit-pvars all` found none readable). */
int mm_counters_metrics(const mm_counters *c);
/* Rank 0: creates <dir>/counters.csv with its header (c NULL: removes a counters.csv that an
 * earlier launch left in a --force'd folder, so that nothing stale sits next to the new files).
 * MM_OK, or an error status with a message. */
mm_status mm_counters_open_csv(mm_counters *c, const char *dir, char *err, size_t len);

/* Per test: the session and handles (MPI_T) or event set (PAPI), started, and the cost of one
 * before + after read measured. Local; MM_OK, or an error status with a message (the test then fails). */
mm_status mm_counters_begin_test(mm_counters *c, char *err, size_t len);
void mm_counters_end_test(mm_counters *c);

/* The hooks of the loop, outside the timed region (NULL-safe no-ops when counters are off):
 * before: before the process sync's wait; after: right after the call's second timestamp,
 * the deltas stored as repetition `slot` (a later repetition with the same slot overwrites it:
 * warm-up and redone repetitions are never kept). */
void mm_counters_before(mm_counters *c);
void mm_counters_after(mm_counters *c, long slot);

/* Collective (c NULL on every rank: nothing). Rank 0 gathers the test's nrep repetitions of every
 * rank (reduced: the sum over ranks, rank -1) and appends them to counters.csv (flushed; fsync'd
 * by mm_counters_sync before the final meta.json), and records the test's read cost (max over
 * ranks). MM_OK, or an error status when rank 0 could not write (its return; others 0); MPI
 * failures in err. */
mm_status mm_counters_write_test(mm_counters *c, const mm_test *t, long nrep, int reduced,
                           mm_mpi_error *err);
/* Rank 0, before the launch's final meta.json (mm_outdir_write_meta, MM_META_FINAL): flushes and
 * fsyncs counters.csv (c NULL or no file: nothing). MM_OK, or MM_E_FAILED with errno set. */
mm_status mm_counters_sync(mm_counters *c);

/* meta.json's "counters": null without counters, else what was read and how (rank 0). */
void mm_counters_render_meta(mm_json *j, const mm_counters *c);
/* The same value alone, pretty-printed as meta.json nests it (out emptied; left empty when c is
 * NULL): what bench hands to output in the launch record (mm_launch.counters_json). */
void mm_counters_meta_json(const mm_counters *c, mm_buf *out);

#endif
