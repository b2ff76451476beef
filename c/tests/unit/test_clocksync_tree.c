/* SPDX-License-Identifier: BSD-3-Clause */
/* test_clocksync_tree.c — the tree shapes of the clock syncs (tree.c), for every p up to 130:
 * every rank but 0 is a child exactly once, parents have lower ranks, the actions of the two
 * ends of an edge match, and executing the action lists in order never deadlocks (simulated:
 * an edge runs when both ends have it at the head of their lists). Also the point schedule and
 * the residual sample. */
#include <math.h>
#include <stdlib.h>

#include "../../src/clocksync/cs_internal.h"
#include "mm_check.h"

enum { MAXP = 130 };

/* Simulates the blocking execution; returns 1 when every list completes. */
static int runs_to_completion(int p, mm__action acts[][MM__MAX_ACTIONS], const int *n) {
    int pos[MAXP] = {0};
    for (int progress = 1; progress;) {
        progress = 0;
        for (int r = 0; r < p; r++) {
            if (pos[r] >= n[r]) continue;
            mm__action a = acts[r][pos[r]];
            int q = a.peer;
            if (pos[q] < n[q] && acts[q][pos[q]].peer == r && acts[q][pos[q]].is_child != a.is_child) {
                pos[r]++;
                pos[q]++;
                progress = 1;
            }
        }
    }
    for (int r = 0; r < p; r++)
        if (pos[r] != n[r]) return 0;
    return 1;
}

static void check_tree(int topdown) {
    static mm__action acts[MAXP][MM__MAX_ACTIONS];
    int n[MAXP];
    int all_ok = 1;
    for (int p = 1; p <= MAXP; p++) {
        int depth_ok = 1, parent_ok = 1;
        for (int r = 0; r < p; r++) {
            n[r] = topdown ? mm__topdown_actions(r, p, acts[r]) : mm__bottomup_actions(r, p, acts[r]);
            int children_as = 0, parent = -1;
            for (int k = 0; k < n[r]; k++) {
                mm__action a = acts[r][k];
                if (a.peer < 0 || a.peer >= p || a.peer == r) parent_ok = 0;
                if (a.is_child) {
                    children_as++;
                    parent = a.peer;
                }
            }
            int want = topdown ? mm__topdown_parent(r) : mm__bottomup_parent(r, p);
            if (r == 0 ? (children_as != 0 || want != -1)
                       : (children_as != 1 || parent != want || parent >= r))
                parent_ok = 0;
            /* path length to rank 0 at most ceil(log2 p) (+1 for the non-power-of-two group) */
            int hops = 0;
            for (int x = r; x > 0; x = topdown ? mm__topdown_parent(x) : mm__bottomup_parent(x, p))
                if (++hops > 40) break;
            int lg = 0;
            while ((1 << lg) < p) lg++;
            if (hops > lg + 1) depth_ok = 0;
        }
        int runs = runs_to_completion(p, acts, n);
        if (!parent_ok || !depth_ok || !runs) {
            fprintf(stderr, "%s tree, p = %d: parents %d depth %d runs %d\n",
                    topdown ? "top-down" : "bottom-up", p, parent_ok, depth_ok, runs);
            all_ok = 0;
        }
    }
    CHECK(all_ok);
}

static void check_shapes_by_hand(void) {
    /* Hoefler 2010 Figure 7, p = 7: group 1 = {0..3}; 4, 5, 6 pair with 0, 1, 2 */
    CHECK_EQ_INT(mm__bottomup_parent(1, 7), 0);
    CHECK_EQ_INT(mm__bottomup_parent(2, 7), 0);
    CHECK_EQ_INT(mm__bottomup_parent(3, 7), 2);
    CHECK_EQ_INT(mm__bottomup_parent(4, 7), 0);
    CHECK_EQ_INT(mm__bottomup_parent(6, 7), 2);
    mm__action a[MM__MAX_ACTIONS];
    int n = mm__bottomup_actions(0, 7, a);
    CHECK_EQ_INT(n, 3);
    CHECK(a[0].peer == 1 && !a[0].is_child && a[1].peer == 2 && a[2].peer == 4);
    n = mm__bottomup_actions(2, 7, a);
    CHECK_EQ_INT(n, 3);
    CHECK(a[0].peer == 3 && !a[0].is_child && a[1].peer == 0 && a[1].is_child && a[2].peer == 6);
    /* top-down, p = 5: 1<-0, 2<-0, 3<-1, 4<-0 */
    CHECK_EQ_INT(mm__topdown_parent(3), 1);
    CHECK_EQ_INT(mm__topdown_parent(4), 0);
    CHECK_EQ_INT(mm__topdown_parent(7), 3);
    n = mm__topdown_actions(1, 5, a);
    CHECK_EQ_INT(n, 2);
    CHECK(a[0].peer == 0 && a[0].is_child && a[1].peer == 3 && !a[1].is_child);
}

static void check_schedule(void) {
    CHECK_EQ_INT(mm__point_time(1000, 0, 16, 0.1), 1000);
    CHECK_EQ_INT(mm__point_time(1000, 15, 16, 0.1), 1000 + 100000000);
    CHECK_EQ_INT(mm__point_time(1000, 5, 11, 1.0), 1000 + 500000000);
    CHECK_EQ_INT(mm__point_time(1000, 3, 1, 1.0), 1000);
}

static void check_residual_sample(void) {
    int ranks[5000];
    CHECK_EQ_INT(mm_clocksync_residual_sample(1, ranks), 0);
    CHECK_EQ_INT(mm_clocksync_residual_sample(4, ranks), 3);
    CHECK(ranks[0] == 1 && ranks[2] == 3);
    CHECK_EQ_INT(mm_clocksync_residual_sample(64, ranks), 63);
    const int ps[] = {65, 100, 128, 129, 1000, 4096, 4097};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++) {
        int p = ps[i], n = mm_clocksync_residual_sample(p, ranks);
        int pow2 = 1;
        while (2 * pow2 < p) pow2 *= 2;
        int has_last = 0, has_pow2 = 0, sorted = 1;
        for (int k = 0; k < n; k++) {
            has_last |= ranks[k] == p - 1;
            has_pow2 |= ranks[k] == pow2;
            if (k && ranks[k] <= ranks[k - 1]) sorted = 0;
            if (ranks[k] < 1 || ranks[k] >= p) sorted = 0;
        }
        CHECK(n <= 64 && n >= 60);
        CHECK(has_last && has_pow2 && sorted);
    }
}

/* The fit's early stop: the predicted error fitting n points spread over 0.1 s, 5 s
 * ahead. Points exactly on a line: sigma is the 1 ns floor, so the error is that floor times the
 * least-squares leverage of the horizon, sqrt(1/n + t^2/Sxx), computed here by hand for 8 points.
 * Noise of +-50 ns on alternate points: fifty times more. */
static void check_fit_error(void) {
    enum { N = 8 };
    mm_offset_result pts[N];
    double mean = 0.05, sxx = 0;
    for (int k = 0; k < N; k++) {
        double x = 0.1 * k / (N - 1);
        pts[k] = (mm_offset_result){0};
        pts[k].my_ns = (int64_t)(1e9 + x * 1e9 + 0.5);
        pts[k].offset_ns = -(int64_t)(200 + 2e-6 * x * 1e9 + 0.5); /* 2 ppm drift, 200 ns offset */
        pts[k].rtt_ns = 300;
        sxx += (x - mean) * (x - mean);
    }
    mm_clock_model m = mm__edge_model(pts, N);
    double t = 0.1 + 5.0 - mean;
    double want = sqrt(1.0 / N + t * t / sxx);
    CHECK(fabs(mm__fit_error_ns(pts, N, &m, 5.0) - want) < 1e-3 * want);
    for (int k = 0; k < N; k++) pts[k].offset_ns += (k % 2) ? 50 : -50;
    m = mm__edge_model(pts, N);
    double noisy = mm__fit_error_ns(pts, N, &m, 5.0);
    CHECK(noisy > 30 * want && noisy < 80 * want);
    CHECK(mm__fit_error_ns(pts, 2, &m, 5.0) < 0); /* too few points */
}

int main(void) {
    check_fit_error();
    check_tree(0);
    check_tree(1);
    check_shapes_by_hand();
    check_schedule();
    check_residual_sample();
    return mm_check_summary("clocksync_tree");
}
