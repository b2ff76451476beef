/* SPDX-License-Identifier: BSD-3-Clause */
/* help.c — mpimeter-bench --help: the option table (config/options.c) as text, wrapped to the
 * terminal's width with each option's description indented under its own column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "app_output.h"
#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_ops.h"
#include "mm_procsync.h"
#include "mm_timer.h"

enum { MM__HEAD = 28 }; /* "  --option METAVAR" column, then the description */

int mm_help_width(void) {
    int width = 0;
    struct winsize ws;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) width = ws.ws_col;
    const char *columns = getenv("COLUMNS");
    if (width <= 0 && columns) width = atoi(columns);
    if (width <= 0) width = 80;
    return width < 40 ? 40 : width;
}

void mm_help_wrap(FILE *f, const char *text, int at, int indent, int width) {
    int col = at, fresh = 1; /* fresh: no word of the text on this line yet */
    for (const char *p = text; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        int word = (int)strcspn(p, " ");
        int gap = fresh ? 0 : 1;
        if ((!fresh || col > indent) && col + gap + word > width) { /* to the next line */
            fprintf(f, "\n%*s", indent, "");
            col = indent;
            gap = 0;
        }
        fprintf(f, "%*s%.*s", gap, "", word, p);
        col += gap + word;
        fresh = 0;
        p += word;
    }
    fputc('\n', f);
}

/* One option: its head, then help, default and what is allowed, as one wrapped paragraph. */
static void mm__print_option(FILE *f, const mm_option_spec *o, int width) {
    char head[64];
    snprintf(head, sizeof head, "  --%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
    char text[2048];
    size_t used = (size_t)snprintf(text, sizeof text, "%s", o->help);
    if (o->default_text && *o->default_text && used < sizeof text)
        used += (size_t)snprintf(text + used, sizeof text - used, " [%s]", o->default_text);
    if ((o->type == MM_OPT_INT || o->type == MM_OPT_I64 || o->type == MM_OPT_FLOAT ||
         o->type == MM_OPT_FLOATS || o->type == MM_OPT_CHOICE) && used < sizeof text) {
        char allowed[256];
        mm_option_allowed_text(o, allowed, sizeof allowed);
        snprintf(text + used, sizeof text - used, " (%s%s%s)", allowed, o->unit ? " " : "",
                 o->unit ? o->unit : "");
    }
    int indent = width >= 72 ? MM__HEAD + 1 : 8; /* narrow terminals: the text under the head */
    int headlen = (int)strlen(head);
    fputs(head, f);
    if (headlen + 1 > indent) {
        fprintf(f, "\n%*s", indent, "");
    } else {
        fprintf(f, "%*s", indent - headlen, "");
    }
    mm_help_wrap(f, text, indent, indent, width);
}

void mm_config_print_help(FILE *f, int width) {
    fprintf(f,
            "usage: mpirun -np P mpimeter-bench [options] --out DIR\n"
            "       mpimeter-bench --sync-check [options]   (under mpirun: checks clock syncs)\n"
            "       mpimeter-bench --validate NP [options]   (checks the options without MPI)\n"
            "       mpimeter-bench --list-ops | --describe | --help | --version\n\n");
    mm_help_wrap(f, "Measures MPI operations (Hunold & Carpen-Amarie 2016, Algorithm 1 and 2 within "
                 "one launch) and writes the launch folder DIR (meta.json, raw.csv, sync.csv; see "
                 "docs/FORMAT.md).", 0, 0, width);
    fprintf(f, "\noptions (default in brackets, then what is allowed):\n");
    size_t n;
    const mm_option_spec *t = mm_options(&n);
    for (size_t i = 0; i < n; i++)
        if (!(t[i].flags & MM_OPT_F_HIDDEN)) mm__print_option(f, &t[i], width);
    const struct { const char *what, *names; } lists[] = {
        {"timers:", mm_timer_names()},          {"clock syncs:", mm_clocksync_names()},
        {"process syncs:", mm_procsync_names()}, {"datatypes:", mm_datatype_names()},
        {"reduce ops:", mm_reduce_op_names()}};
    fputc('\n', f);
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        fprintf(f, "%s ", lists[i].what);
        mm_help_wrap(f, lists[i].names, (int)strlen(lists[i].what) + 1, 4, width);
    }
    fputc('\n', f);
    mm_help_wrap(f, "Exit status: 0 success, 2 bad input (nothing written), 1 failure while "
                 "measuring.", 0, 0, width);
}
