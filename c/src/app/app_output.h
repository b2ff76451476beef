/* SPDX-License-Identifier: BSD-3-Clause */
/* app_output.h — what the application prints besides the library's messages: the line per
 * finished test (progress.c), the wrapped --help (help.c) and the
 * abort after a rank's last line (abort.c). Internal to c/src/app/. */
#ifndef MM_APP_OUTPUT_H
#define MM_APP_OUTPUT_H
#include <mpi.h>
#include <stdio.h>

#include "mm_config.h"
#include "mm_launch.h"
#include "mm_ops.h"

/* What main hands both on_test callbacks as ctx: the quick table's state (quick.c) and the
 * configuration, whose lists say what tells the tests of one operation and size apart. */
typedef struct mm_quick_table {
    const mm_op *op; /* the operation whose header was printed last; NULL: none yet */
    const mm_config *cfg; /* NULL: no test is told apart by more than its operation and size */
} mm_quick_table;
/* mm_launch_result.on_test: one line on stderr (ctx: an mm_quick_table), e.g.
 * "mpimeter-bench: [3/40] allreduce 1024 B: 298 of 300 valid, median 12.3 us (window, global clock)" */
void mm_progress_print(const mm_test_facts *facts, void *ctx);
/* The line of one finished test, without the binary's name, into out (cfg as in mm_quick_table). */
void mm_progress_format(const mm_test_facts *facts, const mm_config *cfg, char *out, size_t len);
/* What tells test t apart from the launch's other tests of its operation and size: its root
 * when --root gives several, its ranks when --nprocs does, its pieces when --workpieces does
 * ("root 1, 2 ranks"); "" when nothing does. */
void mm_test_label(const mm_config *cfg, const mm_test *t, char *out, size_t len);
/* The quick table (quick.c): without --out, a table row per finished test on stdout. */
/* mm_launch_result.on_test of the quick table (ctx: an mm_quick_table, zeroed at first). */
void mm_quick_table_row(const mm_test_facts *facts, void *ctx);
/* Rank 0, without --out: a new folder under $TMPDIR (or /tmp) as cfg->out. 0, or 2 with a
 * message. */
mm_status mm_quick_make_folder(mm_config *cfg, char *err, size_t len);
/* Rank 0, without --out: the folder mm_quick_make_folder made, removed when the launch ended
 * before writing to it (a refusal exits 2 with nothing written: no empty folder left in $TMPDIR);
 * rmdir keeps one that holds anything, and its path is written to `say`: the user never chose
 * it, and a failed launch's files are what tells why it failed. */
void mm_quick_remove_unused_folder(const mm_config *cfg, int rank, FILE *say);
/* Writes text into f as lines of at most `width` columns, breaking at spaces; the first line
 * starts at column `at` (the caller printed that much), the others `indent` spaces in. A word
 * longer than a line stays whole. */
void mm_help_wrap(FILE *f, const char *text, int at, int indent, int width);
/* The terminal's width for --help: stdout's when it is a terminal, else $COLUMNS, else 80;
 * at least 40. */
int mm_help_width(void);

/* Ends every rank of comm with exit code `code` (MPI_Abort) once the line this rank wrote to
 * stderr has left its pipe (at most 2 s later), so that the launcher forwards it (abort.c). */
void mm_abort_after_line(MPI_Comm comm, int code);

#endif
