/* SPDX-License-Identifier: BSD-3-Clause */
/* mm_check.h — the unit-test harness: CHECK macros and a summary line "N passed, N failed". */
#ifndef MM_CHECK_H
#define MM_CHECK_H
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int mm_check_passed, mm_check_failed;

#define CHECK(cond)                                                                     \
    do {                                                                                \
        if (cond) {                                                                     \
            mm_check_passed++;                                                          \
        } else {                                                                        \
            mm_check_failed++;                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);    \
        }                                                                               \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                              \
    do {                                                                                \
        long long mm_a_ = (long long)(a), mm_b_ = (long long)(b);                       \
        if (mm_a_ == mm_b_) {                                                           \
            mm_check_passed++;                                                          \
        } else {                                                                        \
            mm_check_failed++;                                                          \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__,         \
                    __LINE__, #a, #b, mm_a_, mm_b_);                                    \
        }                                                                               \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                           \
    do {                                                                                \
        double mm_a_ = (double)(a), mm_b_ = (double)(b);                                \
        if (fabs(mm_a_ - mm_b_) <= (tol)) {                                             \
            mm_check_passed++;                                                          \
        } else {                                                                        \
            mm_check_failed++;                                                          \
            fprintf(stderr, "%s:%d: |%s - %s| <= %g failed: %.17g vs %.17g\n",          \
                    __FILE__, __LINE__, #a, #b, (double)(tol), mm_a_, mm_b_);           \
        }                                                                               \
    } while (0)

#define CHECK_STR(a, b)                                                                 \
    do {                                                                                \
        const char *mm_a_ = (a), *mm_b_ = (b);                                          \
        if (mm_a_ && mm_b_ && strcmp(mm_a_, mm_b_) == 0) {                              \
            mm_check_passed++;                                                          \
        } else {                                                                        \
            mm_check_failed++;                                                          \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" vs \"%s\"\n", __FILE__,     \
                    __LINE__, #a, #b, mm_a_ ? mm_a_ : "(null)", mm_b_ ? mm_b_ : "(null)"); \
        }                                                                               \
    } while (0)

static inline int mm_check_summary(const char *suite) {
    printf("%s: %d passed, %d failed\n", suite, mm_check_passed, mm_check_failed);
    return mm_check_failed ? 1 : 0;
}

#endif
