/* SPDX-License-Identifier: BSD-3-Clause */
/* offset.c — measuring the clock offset between two ranks by ping-pong.
 *
 * What: a pure estimator with its stopping rule, fed one round trip at a time, and the MPI loop
 * that produces the round trips. The measuring rank reads t1, sends a ping, the peer answers
 * with its clock t2, the measuring rank reads t3. Then
 *   candidate offset (peer − mine) = t2 − (t1 + t3)/2,  RTT = t3 − t1,
 * and every round trip bounds the offset: t2 − t3 <= offset <= t2 − t1.
 * Two estimators:
 *   MM_OFFSET_MIN_RTT (Hoefler, Schneider & Lumsdaine 2010 §3.1): keep the candidate of the
 *     round trip with the smallest RTT; stop once N consecutive round trips did not beat that
 *     minimum, or at the cap. No mean or median: RTT noise is asymmetric.
 *   MM_OFFSET_BOUNDS (SKaMPI, Reussner et al. 1998): keep the tightest lower and upper bound and
 *     return their midpoint; stop at the cap or early, once (after min_rounds rounds) a round
 *     trip's RTT is within 110 % of the best RTT known for this pair before that round.
 * Why: the error of either estimate is at most half the best RTT (the truth lies in the bounds
 * of every round trip), and each side reads its clock through an mm_clockfn so that hca3 can
 * answer with the parent's global clock.
 * Known bugs of other implementations avoided (docs/ALGORITHMS.md): the per-pair RTT cache is an
 * explicit argument where 0 means "unknown" and is never used as an RTT (an inverted cache test
 * elsewhere read RTT = 0 on first use and biased the offset by RTT/2); the early stop compares
 * with the best RTT *before* the current round, so it fires as soon as a round is close to the
 * best (elsewhere it could never fire). Both are unit-tested (test_offset.c).
 * Cost: per measurement between N+1 and cap round trips (2 messages of 8 bytes each), plus one
 * uncounted first round trip (it waits for the peer to be ready) and one stop message. */
#include "mm_clocksync.h"
#include "mm_mpi.h"

enum { MM__TAG_PING = 101, MM__TAG_PONG = 102 };

mm_offset_rules mm_offset_rules_min_rtt(const mm_clocksync_params *p) {
    mm_offset_rules r = {MM_OFFSET_MIN_RTT, p->pingpong_cap, p->n_nonimproving, p->min_rounds, 0};
    return r;
}

mm_offset_rules mm_offset_rules_bounds(const mm_clocksync_params *p, int64_t prior_best_rtt_ns) {
    mm_offset_rules r = {MM_OFFSET_BOUNDS, p->pingpong_cap, p->n_nonimproving, p->min_rounds,
                         prior_best_rtt_ns > 0 ? prior_best_rtt_ns : 0};
    return r;
}

void mm_offset_init(mm_offset_estimator *e, const mm_offset_rules *rules) {
    e->rules = *rules;
    if (e->rules.cap < 1) e->rules.cap = 1;
    if (e->rules.n_nonimproving < 1) e->rules.n_nonimproving = 1;
    if (e->rules.min_rounds < 1) e->rules.min_rounds = 1;
    e->rounds = 0;
    e->since_improved = 0;
    e->done = 0;
    e->best_rtt_ns = -1;
    e->best_mid_ns = e->best_peer_ns = 0;
    e->lower_ns = INT64_MIN;
    e->upper_ns = INT64_MAX;
}

/* SKaMPI's early stop: is this round's RTT within 110 % of the best known before it? The
 * reference is the prior cache (when known) or this measurement's earlier rounds. */
static int mm__within_110_percent(const mm_offset_estimator *e, int64_t rtt, int64_t best_before) {
    int64_t ref = best_before;
    if (e->rules.prior_best_rtt_ns > 0 && (ref < 0 || e->rules.prior_best_rtt_ns < ref))
        ref = e->rules.prior_best_rtt_ns;
    if (ref < 0) return 0; /* nothing known yet: no reference, no early stop */
    return 10 * rtt <= 11 * ref;
}

int mm_offset_add(mm_offset_estimator *e, int64_t t1, int64_t t2, int64_t t3) {
    if (e->done) return 1;
    e->rounds++;
    int64_t rtt = t3 - t1;
    int64_t best_before = e->best_rtt_ns;
    if (rtt >= 0) { /* a clock that ran backwards gives no information: the round only counts */
        if (best_before < 0 || rtt < best_before) {
            e->best_rtt_ns = rtt;
            e->best_mid_ns = t1 + rtt / 2;
            e->best_peer_ns = t2;
            e->since_improved = 0;
        } else {
            e->since_improved++;
        }
        if (t2 - t3 > e->lower_ns) e->lower_ns = t2 - t3;
        if (t2 - t1 < e->upper_ns) e->upper_ns = t2 - t1;
    } else {
        e->since_improved++;
    }
    if (e->rounds >= e->rules.cap) {
        e->done = 1;
    } else if (e->rules.method == MM_OFFSET_MIN_RTT) {
        e->done = e->since_improved >= e->rules.n_nonimproving;
    } else {
        e->done = rtt >= 0 && e->rounds >= e->rules.min_rounds &&
                  mm__within_110_percent(e, rtt, best_before);
    }
    return e->done;
}

void mm_offset_result_get(const mm_offset_estimator *e, mm_offset_result *out) {
    out->rounds = e->rounds;
    out->bounds_crossed = 0;
    if (e->best_rtt_ns < 0) {
        out->offset_ns = out->my_ns = out->peer_ns = out->rtt_ns = 0;
        out->rounds = 0;
        return;
    }
    out->my_ns = e->best_mid_ns;
    out->peer_ns = e->best_peer_ns;
    out->rtt_ns = e->best_rtt_ns;
    int64_t candidate = e->best_peer_ns - e->best_mid_ns;
    if (e->rules.method == MM_OFFSET_BOUNDS) {
        if (e->lower_ns <= e->upper_ns) {
            out->offset_ns = e->lower_ns + (e->upper_ns - e->lower_ns) / 2;
        } else {
            /* Empty intersection: drift during the measurement (or a clock step) made the
             * bounds inconsistent. The min-RTT candidate is still within RTT/2 of the truth
             * at its own instant. */
            out->offset_ns = candidate;
            out->bounds_crossed = 1;
        }
    } else {
        out->offset_ns = candidate;
    }
}

/* ---- clocks ---- */

static int64_t mm__local_now(const void *ctx) { return mm_timer_now((const mm_timer *)ctx); }
static int64_t mm__global_now(const void *ctx) {
    return mm_clocksync_global_now((const mm_clocksync *)ctx);
}

mm_clockfn mm_clockfn_local(const mm_timer *t) {
    mm_clockfn c = {mm__local_now, t};
    return c;
}

mm_clockfn mm_clockfn_global(const mm_clocksync *cs) {
    mm_clockfn c = {mm__global_now, cs};
    return c;
}

/* ---- MPI ----
 * Ping: one int64, 1 = "answer with your clock", 0 = "done". Pong: the peer's clock. The stop
 * message is sent after the last round trip, outside every measured interval.
 * Waiting for a partner that is not there yet (a parent still busy with another child, a child
 * sleeping until its next fit point, rank 0 serving other ranks) is done by polling with short
 * sleeps, not by a blocking receive: MPI libraries spin in blocking calls, and when ranks share
 * cores the spinning bystanders steal the CPU from the pair that is measuring and make its round
 * trips erratic and asymmetric (mm_wait_sleeping). Once a measurement runs, both sides use
 * blocking calls. */

int mm_offset_measure(MPI_Comm comm, int peer, mm_clockfn clock, const mm_offset_rules *rules,
                      mm_offset_result *out) {
    mm_offset_estimator e;
    mm_offset_init(&e, rules);
    const int64_t go = 1, stop = 0;
    int rc = MPI_SUCCESS;
    int done = 0;
    /* Round trip 0 finds out whether the peer is ready (sleeping wait, not counted). */
    int64_t first_pong = 0;
    MPI_Request req;
    rc = MM_MPI(NULL, MPI_Send(&go, 1, MPI_INT64_T, peer, MM__TAG_PING, comm));
    if (rc == MPI_SUCCESS) rc = MM_MPI(NULL, MPI_Irecv(&first_pong, 1, MPI_INT64_T, peer, MM__TAG_PONG, comm, &req));
    if (rc == MPI_SUCCESS) rc = MM_MPI(NULL, mm_wait_sleeping(&req));
    while (!done && rc == MPI_SUCCESS) {
        int64_t t2 = 0;
        int64_t t1 = mm_clockfn_now(clock);
        rc = MM_MPI(NULL, MPI_Send(&go, 1, MPI_INT64_T, peer, MM__TAG_PING, comm));
        if (rc == MPI_SUCCESS)
            rc = MM_MPI(NULL, MPI_Recv(&t2, 1, MPI_INT64_T, peer, MM__TAG_PONG, comm, MPI_STATUS_IGNORE));
        int64_t t3 = mm_clockfn_now(clock);
        if (rc == MPI_SUCCESS) done = mm_offset_add(&e, t1, t2, t3);
    }
    if (rc == MPI_SUCCESS) rc = MM_MPI(NULL, MPI_Send(&stop, 1, MPI_INT64_T, peer, MM__TAG_PING, comm));
    mm_offset_result_get(&e, out);
    return rc;
}

int mm_offset_decline(MPI_Comm comm, int peer) {
    const int64_t stop = 0;
    return MM_MPI(NULL, MPI_Send(&stop, 1, MPI_INT64_T, peer, MM__TAG_PING, comm));
}

int mm_offset_respond(MPI_Comm comm, int peer, mm_clockfn clock) {
    for (int first = 1;; first = 0) {
        int64_t msg = 0;
        int rc;
        if (first) {
            MPI_Request req;
            rc = MM_MPI(NULL, MPI_Irecv(&msg, 1, MPI_INT64_T, peer, MM__TAG_PING, comm, &req));
            if (rc == MPI_SUCCESS) rc = MM_MPI(NULL, mm_wait_sleeping(&req));
        } else {
            rc = MM_MPI(NULL, MPI_Recv(&msg, 1, MPI_INT64_T, peer, MM__TAG_PING, comm, MPI_STATUS_IGNORE));
        }
        if (rc != MPI_SUCCESS) return rc;
        if (msg == 0) return MPI_SUCCESS;
        int64_t t2 = mm_clockfn_now(clock);
        rc = MM_MPI(NULL, MPI_Send(&t2, 1, MPI_INT64_T, peer, MM__TAG_PONG, comm));
        if (rc != MPI_SUCCESS) return rc;
    }
}
