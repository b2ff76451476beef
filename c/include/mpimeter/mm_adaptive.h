/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_adaptive.h — how many measurements are enough, as pure functions (adaptive.c): no MPI, no
 * clock, no I/O, so that known sequences give known stopping points in unit tests.
 *
 * - Repetitions of one test (--nrep auto[:RULE]): after every k repetitions rank 0 asks
 *   mm_stop_decide whether the valid run times so far are precise enough (rule `ci`: Hoefler &
 *   Belli 2015 §4.2.2 with Le Boudec's rank interval of the median; rule `rse`: SKaMPI, Reussner
 *   et al. 1998 §3.1, the relative standard error of the 25 %-trimmed mean).
 * - Message sizes (--sizes auto:MIN:MAX): SKaMPI §3.2, the segment whose linear interpolation
 *   is worst is split at its geometric middle (mm_refine_pick). */
#ifndef MM_ADAPTIVE_H
#define MM_ADAPTIVE_H
#include <stdint.h>
#include "mm_error.h"
#include "mm_nrep.h" /* MM_NREP_*, MM_STOP_* and their words */

typedef struct mm_stop_rule {
    int rule;             /* MM_NREP_CI or MM_NREP_RSE */
    long nrep_min;        /* no stop for precision below this many recorded repetitions */
    long nrep_max;        /* stop here whatever the precision */
    double precision;     /* ci: e, the interval within +-e x median; rse: epsilon */
    double confidence;    /* ci: 1 - alpha */
    double budget_s;      /* per test; <= 0: no time budget */
    double resolution_ns; /* rse: the timer's resolution (SKaMPI: total time >= resolution / eps) */
} mm_stop_rule;

typedef struct mm_stop_decision {
    int reason;     /* MM_STOP_* */
    double reached; /* the precision the valid run times give now; NaN when none can be computed */
} mm_stop_decision;

/* The standard normal quantile (Wichura 1988, AS 241, ~1e-16 relative): p in (0, 1). */
double mm_normal_quantile(double p);

/* 1-based ranks (j, k) of the order statistics that bound the median's interval at `confidence`
 * (Le Boudec 2011, Theorem 2.1 and Table A.1): exact for n <= 70 (j the largest with
 * B(j-1) <= alpha/2, B the Binomial(n, 1/2) CDF; k = n + 1 - j), the normal approximation above
 * (j = floor((n - z sqrt(n)) / 2), k = ceil(1 + (n + z sqrt(n)) / 2)). The same ranks as
 * mpimeter.stats.intervals.median_ci_ranks. 0, or MM_E_FAILED when n is too small for an
 * interval. */
mm_status mm_median_ci_ranks(long n, double confidence, long *j, long *k);

/* Sorts v[0..n-1] ascending. */
void mm_sort_doubles(double *v, long n);
/* Median of sorted[0..n-1] (mean of the two middle values when n is even); NaN when n == 0. */
double mm_sorted_median(const double *sorted, long n);

/* ci: the larger distance of the interval's bounds from the median, relative to the median;
 * NaN when there is no interval (n too small) or the median is not positive. */
double mm_precision_ci(const double *sorted, long n, double confidence);

/* rse: the standard error of the 25 %-trimmed mean relative to it, with the Tukey-McLaughlin
 * standard error s_w / ((1 - 2 x 0.25) sqrt(n)), s_w the 25 %-winsorized standard deviation,
 * and never below resolution_ns / (sum of all n run times) (SKaMPI §3.1: the total time must be
 * at least the clock's resolution / eps). NaN for n < 4 or a trimmed mean that is not positive. */
double mm_precision_rse(const double *sorted, long n, double resolution_ns);

/* The decision after `recorded` repetitions of which the `nvalid` run times in `valid` are valid
 * (sorted in place), `elapsed_s` into the test: precision (reached <= precision with at least
 * nrep_min recorded), else max (recorded >= nrep_max), else budget (elapsed_s >= budget_s), else
 * continue. */
mm_stop_decision mm_stop_decide(const mm_stop_rule *r, double *valid, long nvalid, long recorded,
                                double elapsed_s);

/* ---- size refinement (SKaMPI §3.2) ---- */

/* The error of not splitting segment i (between sizes[i] and sizes[i+1], both measured):
 * min(|D1| / t_i, |D2| / t_{i+1}, (m_{i+1} - m_i) / m_i), D1 the error of predicting t_i by
 * extending the next segment linearly, D2 of predicting t_{i+1} by extending the previous one
 * (a term is left out when that neighbour does not exist). sizes increasing, times positive. */
double mm_refine_segment_error(const int64_t *sizes, const double *times_ns, int n, int i);

/* The size to measure next: the segment with the largest error among those that hold a size
 * `size_ok` accepts strictly inside, split at the accepted size nearest its geometric middle
 * sqrt(m_b m_c). Writes that size and returns the segment index; returns -1 when the largest
 * error is below `bound` or no segment can be split. *max_error: the largest error over the
 * segments that can be split (0 when none can). */
int mm_refine_pick(const int64_t *sizes, const double *times_ns, int n, double bound,
                   int (*size_ok)(int64_t size, const void *ctx), const void *ctx,
                   int64_t *new_size, double *max_error);

#endif
