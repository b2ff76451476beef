/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_clocksync.h — turning local time into global time (see docs/ALGORITHMS.md). One algorithm per file c/src/clocksync/cs_<name>.c behind
 * this vtable; the registry is in clocksync.c. Every rank ends a sync with its own model
 * (local -> global, the global clock being rank 0's clock). */
#ifndef MM_CLOCKSYNC_H
#define MM_CLOCKSYNC_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include "mm_model.h"
#include "mm_mpi.h"
#include "mm_timer.h"

/* sync.csv rows: what kind of measurement a record is. */
enum { MM_SYNC_EDGE = 0,     /* one offset measurement against `peer`'s clock (parent) */
       MM_SYNC_MODEL = 1,    /* the rank's resulting offset to the global clock at local_ns */
       MM_SYNC_RESIDUAL = 2  /* global-vs-global check by rank 0 (phase -1 start, -2 end) */
};

typedef struct mm_sync_record {
    int32_t rank, phase, kind, peer;
    int64_t local_ns;  /* rank's local clock (not yet minus the launch epoch) */
    int64_t offset_ns; /* reference (peer / global) minus this rank's clock */
    int64_t rtt_ns;
} mm_sync_record;

typedef struct mm_sync_log {
    mm_sync_record *rec;
    size_t n, cap;
    size_t lost; /* records that did not fit (out of memory): the sync that made them fails */
} mm_sync_log;
/* Appends r: 0, or MM_E_NOMEM (mm_error.h) when the log cannot grow (r is counted in lost). */
mm_status mm_sync_log_add(mm_sync_log *log, mm_sync_record r);
void mm_sync_log_free(mm_sync_log *log);

/* Parameters. A field left 0 means "the algorithm's default" and is resolved by
 * mm_clocksync_open (cs->params then holds the values used, for meta.json). The defaults are
 * the same for every algorithm (docs/ALGORITHMS.md explains them); they keep a 4-rank
 * oversubscribed Open MPI sync at about 0.2 s (jk, hca, hca2) or 0.4 s (hca3), the others
 * at ~1 ms:
 *   nfit            MM_CS_DEFAULT_NFIT points per fitted edge (jk, hca, hca2, hca3)
 *   pingpong_cap    MM_CS_DEFAULT_CAP round trips at most per offset measurement
 *   n_nonimproving  MM_CS_DEFAULT_N: stop after N round trips that did not beat the min RTT
 *   min_rounds      MM_CS_DEFAULT_MIN_ROUNDS (skampi: before the 110 % early stop may fire)
 *   fit_span_s      MM_CS_DEFAULT_FIT_SPAN_S: the nfit points of an edge are spread over this
 *                   span (the span, not the number of points, decides the drift error). */
#define MM_CS_DEFAULT_NFIT 32
#define MM_CS_DEFAULT_CAP 200
#define MM_CS_DEFAULT_N 20
#define MM_CS_DEFAULT_MIN_ROUNDS 10
#define MM_CS_DEFAULT_FIT_SPAN_S 0.2
typedef struct mm_clocksync_params {
    int nfit;             /* fit points per edge (jk, hca*) */
    int pingpong_cap;     /* max round trips per offset measurement */
    int n_nonimproving;   /* stop after N round trips that did not beat the min RTT */
    int min_rounds;       /* skampi: rounds before early stop may fire */
    double fit_span_s;    /* drift-aware algorithms: spread the nfit points over this span */
    /* --fit-target-ns (a sync's cost proportional to the accuracy needed). 0 = the
     * fit takes all nfit points. Otherwise a top-down edge (hca3) stops adding points, after
     * MM_FIT_MIN_POINTS, once the fit's predicted error fit_horizon_s (MM_FIT_HORIZON_S, set by
     * mm_clocksync_open) after its last point is at most fit_target_ns (tree.c). */
    int64_t fit_target_ns;
    double fit_horizon_s;
} mm_clocksync_params;

/* The early stop's fewest points: enough for the robust fit to outvote a few asymmetric round
 * trips (docs/ALGORITHMS.md, "Fitting a line"); and its horizon: the span of the accuracy the
 * docs claim for the drift-aware syncs (residuals ~1-3 us 5 s after the sync). */
enum { MM_FIT_MIN_POINTS = 8 };
#define MM_FIT_HORIZON_S 5.0

/* Fills zero fields of `given` with the defaults of algorithm `name` into *out (given may be
 * NULL: all defaults). */
void mm_clocksync_params_resolve(const char *name, const mm_clocksync_params *given,
                                 mm_clocksync_params *out);
/* 0, or MM_E_INPUT with one sentence in err (negative values, a non-finite or huge span). Zero fields
 * are fine (they mean "default"); a cap below N + 1 is allowed (then the cap alone stops). */
mm_status mm_clocksync_params_check(const mm_clocksync_params *p, char *err, size_t err_len);

typedef struct mm_clocksync mm_clocksync;
struct mm_config;
struct mm_sync_facts;
/* The launch record's clock-sync facts (mm_facts.h): of cs when given, else the defaults of the
 * configuration's first --clocksync (what --validate shows). */
void mm_clocksync_facts_of(const struct mm_config *c, const mm_clocksync *cs,
                           struct mm_sync_facts *f);

typedef struct mm_clocksync_vtable {
    const char *name;
    const char *model_kind; /* "identity" | "offset" | "linear" */
    const char *tree;       /* "none" | "star" (rank 0 with each) | "bottom-up" | "top-down" */
    const char *cost;       /* rounds as a function of p: "0", "O(p)", "O(log p)", ... */
    const char *description;
    /* Collective over cs->comm. Sets cs->model (and cs->parent), appends its MM_SYNC_EDGE
     * records to cs->log with cs->phase. Returns MPI_SUCCESS or an MPI error code. */
    int (*sync)(mm_clocksync *cs);
} mm_clocksync_vtable;

struct mm_clocksync {
    const mm_clocksync_vtable *vt;
    MPI_Comm comm;
    int rank, nprocs;
    const mm_timer *timer;
    mm_clocksync_params params;
    mm_clock_model model; /* this rank: local -> global */
    int parent;           /* rank measured against in the last sync; -1 on rank 0 / none */
    int phase;            /* 0 initial, k-th resync */
    int nsyncs;
    double duration_s;       /* of the initial sync */
    double total_duration_s; /* of all syncs */
    int64_t last_sync_local_ns;
    int64_t residual_local_ns; /* when this rank last answered a residual check; 0 never */
    mm_sync_log log;
    int64_t edge_best_rtt_ns; /* skampi: best RTT of this rank's edge in earlier syncs; 0 unknown */
    int nfailed;              /* syncs that failed (the model of the last good one was kept) */
    /* The self-check after the first sync of a drift-aware model (self_check.c), rank 0's
     * view: checked, the largest residual of the drift-aware model and of the offset-only
     * model it implies, both from one measurement; offset_only: the latter was better and is
     * used (every rank), and every later sync is frozen to it too. */
    int self_checked;
    int64_t self_check_linear_ns, self_check_offset_ns;
    int fit_points; /* points of this rank's last top-down edge fit (the early stop: params) */
    int offset_only;
    mm_mpi_error err;         /* the first MPI failure of this sync module */
};

extern const mm_clocksync_vtable *const mm_clocksync_registry[];
const mm_clocksync_vtable *mm_clocksync_find(const char *name);
const char *mm_clocksync_names(void);

/* Collective (duplicates comm into cs->comm, so that the sync's messages never meet others).
 * Resolves the parameters (params may be NULL). Returns 0, or MM_E_FAILED for an unknown name, for
 * bad parameters (the callers name the sync that could not be opened) or an MPI failure (in cs->err). */
mm_status mm_clocksync_open(mm_clocksync *cs, const char *name, MPI_Comm comm, const mm_timer *timer,
                            const mm_clocksync_params *params);
/* Collective: runs the algorithm (phase = number of syncs so far) after a barrier, forces rank
 * 0's model to identity, records the duration (max over ranks) and last_sync_local_ns, and logs
 * one MM_SYNC_MODEL record per rank (global − local at the end of the sync). Returns 0, or
 * MM_E_FAILED when the algorithm failed on some rank: then every rank keeps the model of its last good sync,
 * nfailed is counted and err holds the first MPI failure. */
mm_status mm_clocksync_run(mm_clocksync *cs);
void mm_clocksync_close(mm_clocksync *cs);

static inline int64_t mm_clocksync_global_now(const mm_clocksync *cs) {
    return mm_model_global_ns(&cs->model, mm_timer_now(cs->timer));
}
static inline int64_t mm_clocksync_to_global(const mm_clocksync *cs, int64_t local_ns) {
    return mm_model_global_ns(&cs->model, local_ns);
}
static inline int64_t mm_clocksync_to_local(const mm_clocksync *cs, int64_t global_ns) {
    return mm_model_local_ns(&cs->model, global_ns);
}

/* The self-check's margin: the offset-only model replaces the drift-aware one only when its
 * largest residual is smaller by more than this (docs/FORMAT.md, clock_sync.self_check). */
#define MM_SELF_CHECK_MARGIN_NS 1000
/* Collective, right after a sync of a drift-aware model (model_kind "linear") and its residual
 * check (mm_clocksync_residuals: on rank 0 the n checked ranks and their residuals): every rank
 * works out how far its model has moved since the sync's end (the slope's share, which an
 * offset-only model frozen at the sync's end would not have), rank 0 compares the two models'
 * largest residuals and, when the offset-only one is better by more than
 * MM_SELF_CHECK_MARGIN_NS, every rank freezes its model (mm_clocksync_freeze) and cs->
 * offset_only is set. Other model kinds: nothing (returns MPI_SUCCESS). */
int mm_clocksync_self_check(mm_clocksync *cs, const int *ranks, const int64_t *residual_ns, int n);
/* The kind of model in use: "offset" once the self-check froze a drift-aware one, else the
 * algorithm's (vt->model_kind). */
const char *mm_clocksync_model_kind(const mm_clocksync *cs);
/* This rank's model made offset-only: its offset at the last sync's end, slope 0. */
void mm_clocksync_freeze(mm_clocksync *cs);
/* Test only: adds slope_ppm to this rank's drift-aware model, keeping its offset at the last
 * sync's end (a spurious drift, as a short fit under load gives). */
void mm_clocksync_inject_slope(mm_clocksync *cs, double slope_ppm);

/* Collective: rank 0 measures (global clock against global clock, min-RTT ping-pong) the
 * residual offset to every rank, or for p > 64 to a sample that always holds the last rank and
 * the largest power of two (mm_clocksync_residual_sample). On rank 0 fills ranks[] and
 * residual_ns[] (capacity nprocs; residual = rank 0's global clock minus the rank's) and *n
 * (0 on other ranks); each measured rank logs an MM_SYNC_RESIDUAL record with `phase`.
 * If true_error_ns is non-NULL on rank 0, it gets per sampled rank the exact value of what the
 * residual estimates: rank 0's global clock minus the rank's global clock at the same true
 * instant (from mm_timer_truth_ns, the virtual timer's base; meaningful when all ranks share
 * that base, i.e. one host). Other ranks may pass NULL.
 * Returns MPI_SUCCESS or an MPI error code. */
int mm_clocksync_residuals(mm_clocksync *cs, int phase, int *ranks, int64_t *residual_ns,
                           int64_t *true_error_ns, int *n);
/* Collective, no messages but one gather: the true error of every rank at about one instant
 * (rank 0's global clock minus the rank's at the same true instant, from mm_timer_truth_ns; as
 * meaningful as true_error_ns above). On rank 0 fills true_error_ns[0..nprocs−1] (capacity
 * nprocs; other ranks pass NULL). Returns MPI_SUCCESS or an MPI error code. */
int mm_clocksync_true_errors(mm_clocksync *cs, int64_t *true_error_ns);
/* This rank's global clock minus the true time (mm_timer_truth_ns): the truth read just before
 * and just after the clock, their midpoint taken, and of a few such readings the one whose two
 * truth reads lie closest together (a rank preempted between them is off by half the wait).
 * No messages. */
int64_t mm_clocksync_deviation_from_truth(const mm_clocksync *cs);
/* The ranks rank 0 checks, ascending, without rank 0: all for p <= 64, else at most 64 evenly
 * spread ones that always include 1, the largest power of two below p and p − 1. Returns n. */
int mm_clocksync_residual_sample(int nprocs, int *ranks);

/* ---- offset measurement between two ranks (offset.c) ----
 * Pure part: a stopping rule and estimator fed with round trips (t1, t2, t3): t1 and t3 on the
 * measuring rank's clock (send, receive), t2 on the peer's clock when it answered. The offset is
 * the peer's clock minus mine. Unit-tested with simulated round trips. */
enum { MM_OFFSET_MIN_RTT = 0, /* Hoefler 2010 §3.1: candidate of the min-RTT trip, N-stop */
       MM_OFFSET_BOUNDS = 1   /* SKaMPI: intersect the bounds, early stop within 110 % */
};
typedef struct mm_offset_rules {
    int method;                /* MM_OFFSET_MIN_RTT | MM_OFFSET_BOUNDS */
    int cap;                   /* round trips at most (>= 1) */
    int n_nonimproving;        /* min-RTT: stop after N consecutive trips not beating the min */
    int min_rounds;            /* bounds: the early stop may fire from this many rounds on */
    int64_t prior_best_rtt_ns; /* bounds: this pair's best RTT from earlier calls; 0 = unknown
                                * (never read as an RTT of 0) */
} mm_offset_rules;

typedef struct mm_offset_estimator {
    mm_offset_rules rules;
    int rounds, since_improved, done;
    int64_t best_rtt_ns; /* -1 before the first valid trip */
    int64_t best_mid_ns, best_peer_ns;
    int64_t lower_ns, upper_ns; /* bounds on (peer − mine) */
} mm_offset_estimator;

typedef struct mm_offset_result {
    int64_t offset_ns; /* peer clock minus my clock at my_ns */
    int64_t my_ns;     /* my clock at the midpoint of the best (min-RTT) round trip */
    int64_t peer_ns;   /* the peer's reading in that round trip */
    int64_t rtt_ns;    /* the smallest round trip */
    int rounds;
    int bounds_crossed; /* bounds: the intersection was empty; fell back to the min-RTT candidate */
} mm_offset_result;

/* Rules from resolved parameters. */
mm_offset_rules mm_offset_rules_min_rtt(const mm_clocksync_params *p);
mm_offset_rules mm_offset_rules_bounds(const mm_clocksync_params *p, int64_t prior_best_rtt_ns);
void mm_offset_init(mm_offset_estimator *e, const mm_offset_rules *rules);
/* Adds one round trip. Returns 1 once the rule says stop (then further calls are ignored). */
int mm_offset_add(mm_offset_estimator *e, int64_t t1, int64_t t2, int64_t t3);
/* The estimate so far. Zeros (rounds 0) when no valid trip was seen. */
void mm_offset_result_get(const mm_offset_estimator *e, mm_offset_result *out);

/* A clock each side of a ping-pong reads: the local timer, or (hca3, residuals) the global
 * clock of a rank's current model. */
typedef struct mm_clockfn {
    int64_t (*now_ns)(const void *ctx);
    const void *ctx;
} mm_clockfn;
mm_clockfn mm_clockfn_local(const mm_timer *t);
mm_clockfn mm_clockfn_global(const mm_clocksync *cs);
static inline int64_t mm_clockfn_now(mm_clockfn c) { return c.now_ns(c.ctx); }

/* MPI part: the measuring rank runs round trips with `peer` until the rules stop (it sends a
 * final stop message); `peer` must call mm_offset_respond with this rank at the same time.
 * Both return MPI_SUCCESS or an MPI error code. */
int mm_offset_measure(MPI_Comm comm, int peer, mm_clockfn clock, const mm_offset_rules *rules,
                      mm_offset_result *out);
int mm_offset_respond(MPI_Comm comm, int peer, mm_clockfn clock);
/* The measuring side declines one measurement `peer` is about to serve (the stop message
 * alone: mm_offset_respond returns at once). */
int mm_offset_decline(MPI_Comm comm, int peer);

/* ---- the algorithms (one file each) ---- */
extern const mm_clocksync_vtable mm_clocksync_none;
extern const mm_clocksync_vtable mm_clocksync_skampi;
extern const mm_clocksync_vtable mm_clocksync_netgauge;
extern const mm_clocksync_vtable mm_clocksync_jk;
extern const mm_clocksync_vtable mm_clocksync_hca;
extern const mm_clocksync_vtable mm_clocksync_hca2;
extern const mm_clocksync_vtable mm_clocksync_hca3;
extern const mm_clocksync_vtable mm_clocksync_hca3o;

/* ---- --sync-check (app/sync_check.c; docs/ALGORITHMS.md, "Checking a sync") ----
 * Every algorithm of cfg->clocksync syncs in turn; each is checked at each cfg->check.check_at_s
 * (seconds after its own sync ended; the waits of all algorithms shared): residuals (and true
 * errors with the virtual timer on one host); rank 0 prints a table, or with cfg->check.json one
 * JSON object on stdout. Collective. Returns 0, MM_E_FAILED when measuring failed, MM_E_INPUT on
 * bad input (the message on stderr); a rank whose own MPI call failed in a check ends the launch
 * (MPI_Abort). */
struct mm_config;
mm_status mm_sync_check_run(const struct mm_config *cfg, MPI_Comm comm);

#endif
