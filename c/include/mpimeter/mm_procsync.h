/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_procsync.h — how ranks start each repetition together. One file per variant
 * c/src/procsync/ps_<name>.c behind this vtable (none and loop-barrier, alike but for where the
 * barrier stands, share ps_start_barrier.c); registry in procsync.c.
 * Schemes follow Table 3 of Hunold & Carpen-Amarie 2016: barrier = MS1, none = MS2,
 * loop-barrier = MS3, window = MS4; roundtime and harmonize see docs/ALGORITHMS.md. */
#ifndef MM_PROCSYNC_H
#define MM_PROCSYNC_H
#include <mpi.h>
#include <stdint.h>
#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_mpi.h"
#include "mm_timer.h"

/* Why a repetition is invalid (bit flags; 0 = valid). */
enum { MM_INVALID_LATE_START = 1, /* the planned start had passed when the rank got there */
       MM_INVALID_OVERRUN = 2,    /* the call ended after the next window start */
       MM_INVALID_ROUND_LATE = 4, /* roundtime/harmonize: some rank started late */
       MM_INVALID_LATE_WAKEUP = 8 /* the rank waited in time, but its first timestamp came later
                                     than the planned start + the start tolerance */
};
enum { MM_INVALID_NREASONS = 4 }; /* late_start, overrun, round_late, late_wakeup: in this order */

/* Runs the timed call once (the same function the loop times). */
typedef int (*mm_timed_fn)(const void *arg);

typedef struct mm_procsync mm_procsync;

typedef struct mm_procsync_vtable {
    const char *name;
    const char *scheme; /* "MS1", "MS4", ... for reports */
    int needs_global_clock;
    int redoes_invalid; /* the loop repeats invalid repetitions (roundtime, harmonize) */
    int barrier_in_timed_region; /* MS3: the timed region is MPI_Barrier + the call */
    int has_planned_start; /* each repetition starts at a planned time (late_wakeup is checked) */
    /* Collective, before the warm-up of a test: decide window sizes etc. May run the call. */
    int (*begin_test)(mm_procsync *ps, mm_timed_fn call, const void *arg);
    /* Before repetition `rep` (counting warm-up ones too: rep is the loop's sequence number).
     * Waits / synchronizes. Returns invalid flags known before the call (late start). */
    int (*before_rep)(mm_procsync *ps, long rep);
    /* After the call: returns invalid flags (0 = valid). May be collective (roundtime). When
     * redoes_invalid, the return value must be the same on every rank. */
    int (*after_rep)(mm_procsync *ps, long rep, int64_t start_local_ns, int64_t end_local_ns,
                     int before_flags);
    /* Collective, after the test. */
    void (*end_test)(mm_procsync *ps);
    /* The loop asks whether to stop early (roundtime time budget). Same answer on all ranks. */
    int (*budget_exhausted)(mm_procsync *ps);
    /* Collective, optional (NULL: nothing to do): the loop paused between repetitions for
     * collectives of its own (a decision of --nrep auto); the schedule restarts before
     * repetition `rep`, so that the pause makes no repetition late. */
    void (*resume)(mm_procsync *ps, long rep);
} mm_procsync_vtable;

struct mm_procsync {
    const mm_procsync_vtable *vt;
    MPI_Comm comm;
    int rank, nprocs;
    const mm_timer *timer;
    mm_clocksync *cs; /* NULL-safe only for schemes without a global clock */
    const mm_config *cfg;
    /* per test, set by the variant */
    int64_t window_ns;          /* window / slack in use (0 when not applicable) */
    int64_t pilot_window_ns;    /* the window its pilot sized (an automatic window), else 0 */
    int64_t first_start_global_ns;
    int64_t test_start_local_ns;
    long nresyncs;              /* harmonize re-syncs during this test */
    long resync_failures;       /* ... of which failed (the test is then marked failed) */
    /* What the loop does after each repetition, outside the timed region (the cold-cache
     * overwrite), or NULL; set by the loop for a test. Part of what a repetition costs between
     * two window starts, so a pilot that sizes a window must run it too. */
    void (*between_reps)(const void *arg);
    const void *between_arg;
    /* The operation's clean-up after each call (a communicator the call created; a one-sided
     * op's count of calls, which its check after the test needs), or NULL; set by the loop. A
     * pilot that calls the operation runs it too, as the loop does. */
    int (*after_call)(void *arg);
    void *after_call_arg;
    /* Set by begin_test when a window given with --window-us is shorter than between_reps
     * takes (longest of a few runs, max over ranks): that time in ns, else 0. Nearly every
     * repetition then starts late; the launch says so in its warnings. */
    int64_t between_reps_over_window_ns;
    /* Set per test by the loop: how late after the planned start a rank's first timestamp may
     * be (docs/FORMAT.md, start_tolerance_ns). Set per repetition by mm_procsync_wait_start: the
     * planned start on this rank's clock (schemes with has_planned_start). */
    int64_t start_tolerance_ns;
    int64_t planned_start_local_ns;
    /* Test only (--inject-late-wakeup-us): the last rank oversleeps its start by this much in
     * every 4th repetition, as a rank preempted while waiting would. */
    int64_t inject_late_wakeup_ns;
    /* The window's own policy on a busy machine (switch_rule.c): set by the loop per test.
     * may_switch: the scheme may ask to go on with its fallback (window -> roundtime ->
     * barrier); growth_max: the auto window's cap, in pilot windows; switch_late_fraction: the
     * threshold. A scheme asks by setting switch_why (a word of mm_switch_why) and
     * switch_late_fraction_seen at the end of a batch, alike on every rank; the loop switches. */
    int may_switch;
    int growth_max;
    double switch_late_fraction;
    const char *switch_why;
    double switch_late_fraction_seen;
    /* Set by the loop per test, rank 0: the local time the test's budget ends (0: none).
     * A roundtime the test switched to ends there instead of at --roundtime-budget-s. */
    int64_t test_deadline_local_ns;
    int switched; /* this scheme was switched to within the test */
    /* Set by before_rep: this repetition follows a pause of the schedule (a batch restarting
     * after its collectives), so it runs but is not recorded, as a warm-up one: the time since
     * the last call changes what the call costs (docs/ALGORITHMS.md, "The idle time before a
     * call"). */
    int rep_rewarms;
    /* The first MPI failure inside the scheme's calls (MM_MPI); the loop ends the test on it. */
    mm_mpi_error err;
    void *state;
};

extern const mm_procsync_vtable *const mm_procsync_registry[];
const mm_procsync_vtable *mm_procsync_find(const char *name);
const char *mm_procsync_names(void);
mm_status mm_procsync_open(mm_procsync *ps, const char *name, MPI_Comm comm, const mm_timer *timer,
                           mm_clocksync *cs, const mm_config *cfg);
void mm_procsync_close(mm_procsync *ps);

/* Shared helper: how long after rank 0 reads its global clock every rank has the value in hand
 * (barrier + broadcast, third quartile per rank, max over ranks), in ns — the least a start time
 * announced by rank 0 must lie in the future. Collective; needs ps->cs. */
int64_t mm_procsync_start_delay_ns(mm_procsync *ps);

/* The window process sync's adaptation after a batch (ps_window.c): the next window, from the
 * current one, the pilot's, and the largest number of repetitions a rank saw that a longer window
 * would have saved (overrun, late start; not a late wake-up: a rank preempted while it waits is
 * as late in a longer window). Doubles above a quarter of the batch (up to growth_max x the
 * pilot's), halves after a batch without one (down to the pilot's), else keeps it. */
int64_t mm_window_adapt_ns(int64_t window_ns, int64_t pilot_window_ns, long worst_too_short,
                           long batch, int growth_max);
/* An automatic window from its pilot (the slowest rank's median call plus the longest work
 * between repetitions): the pilot plus an idle time that is the same for every call up to 20 us
 * (10 us; half the pilot beyond), at least 10 us. A call's run time grows with the time since
 * the previous call (docs/ALGORITHMS.md, "The idle time before a call"), so a window twice a
 * noisy pilot would move the number with the pilot. */
int64_t mm_window_auto_ns(int64_t pilot_ns);

/* The switch rule (switch_rule.c, pure): after a batch whose worst rank saw `late` of `had`
 * repetitions start late (late_start or late_wakeup), should the test go on with a method that
 * holds? Yes when the late fraction passes `threshold` (strictly) and either the scheme has
 * nothing left to grow (`at_cap`: the window at its cap, or a roundtime) or the batch before was
 * above the threshold too (`late_before`: the doubling in between did not help). Returns the
 * reason's word ("late-at-cap", "late-twice"), or NULL to go on as is. A threshold of 1 never
 * switches. */
const char *mm_switch_why(long late, long had, double threshold, int at_cap, int late_before);
/* What a switching scheme goes on with: window -> roundtime -> barrier; NULL for the others. */
const mm_procsync_vtable *mm_procsync_fallback(const mm_procsync_vtable *vt);
/* The window's batch: 32 repetitions, or a quarter of a short test's warm-up plus repetitions,
 * at least 8, so that short tests adapt too. */
long mm_window_batch_length(long warmup, long nrep);

/* The start of a repetition at a planned time, shared by window, roundtime and harmonize:
 * remembers the planned start (for mm_procsync_late_wakeup), returns MM_INVALID_LATE_START when it
 * has already passed, else waits for it (busy, on the rank's own clock) and returns 0. */
int mm_procsync_wait_start(mm_procsync *ps, long seq, int64_t planned_local_ns);

/* The round start of roundtime and harmonize: a barrier, then rank 0 broadcasts its global clock
 * + slack_ns as the start (the first of a test kept in first_start_global_ns), and every rank
 * waits for it on its own clock (mm_procsync_wait_start, whose value it returns). Collective. */
int mm_procsync_start_after_slack(mm_procsync *ps, long rep, int64_t slack_ns);
/* After the call: MM_INVALID_LATE_WAKEUP when the repetition's first timestamp came later than
 * the planned start plus the tolerance (the rank was not running when it should have started),
 * else 0. Outside the timed region. */
int mm_procsync_late_wakeup(const mm_procsync *ps, int64_t start_local_ns);

/* Building blocks shared by the simple schemes. */
int mm_procsync_nothing_before(mm_procsync *ps, long rep);
int mm_procsync_nothing_after(mm_procsync *ps, long rep, int64_t start_local_ns,
                              int64_t end_local_ns, int before_flags);
void mm_procsync_nothing_end(mm_procsync *ps);
int mm_procsync_barrier_begin(mm_procsync *ps, mm_timed_fn call, const void *arg);

#endif
