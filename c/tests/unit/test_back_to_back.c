/* SPDX-License-Identifier: BSD-3-Clause */
/* test_back_to_back.c — the back-to-back companion without MPI (bench/back_to_back.c): which
 * operations take it, its count from --back-to-back and the test's median call, and the option's
 * default, range and record. */
#include <string.h>

#include "mm_bench.h"
#include "mm_check.h"
#include "mm_config.h"
#include "mm_ops.h"

static mm_config cfg;
static char err[2048];

static int parse(int argc, const char **argv) {
    err[0] = '\0';
    return mm_config_parse(&cfg, argc, (char **)argv, err, sizeof err);
}

/* asked calls while they fit in 10 ms of the median call, else as many as fit, at least 1 */
static void test_calls(void) {
    CHECK_EQ_INT(mm_back_to_back_calls(0, 500), 0);
    CHECK_EQ_INT(mm_back_to_back_calls(100, 500), 100);
    CHECK_EQ_INT(mm_back_to_back_calls(100, 100000), 100);  /* exactly 10 ms */
    CHECK_EQ_INT(mm_back_to_back_calls(100, 200000), 50);
    CHECK_EQ_INT(mm_back_to_back_calls(100, 3e7), 1);       /* one call longer than the budget */
    CHECK_EQ_INT(mm_back_to_back_calls(100, 0), 100);       /* no median: as asked */
}

/* ping-pongs and blocking collectives; not a nonblocking collective, an op with a clean-up after
 * each call, a local op; nothing when off (0) or under --batch */
static void test_applies(void) {
    const char *dflt[] = {"b", "--ops", "allreduce", "--validate", "2"};
    CHECK_EQ_INT(parse(5, dflt), 0);
    CHECK_EQ_INT(cfg.measure.back_to_back, 100);
    CHECK(mm_back_to_back_applies(&cfg, mm_op_find("pingpong-send-recv")));
    CHECK(mm_back_to_back_applies(&cfg, mm_op_find("allreduce")));
    CHECK(mm_back_to_back_applies(&cfg, mm_op_find("bcast")));
    CHECK(!mm_back_to_back_applies(&cfg, mm_op_find("ibcast")));
    CHECK(!mm_back_to_back_applies(&cfg, mm_op_find("delay")));
    CHECK(!mm_back_to_back_applies(&cfg, NULL));
    const char *off[] = {"b", "--ops", "allreduce", "--back-to-back", "0", "--validate", "2"};
    CHECK_EQ_INT(parse(7, off), 0);
    CHECK(!mm_back_to_back_applies(&cfg, mm_op_find("allreduce")));
    const char *batched[] = {"b", "--ops", "allreduce", "--batch", "10", "--procsync", "barrier",
                             "--validate", "2"};
    CHECK_EQ_INT(parse(9, batched), 0);
    CHECK(!mm_back_to_back_applies(&cfg, mm_op_find("allreduce")));
    const char *negative[] = {"b", "--ops", "allreduce", "--back-to-back", "-1", "--validate", "2"};
    CHECK_EQ_INT(parse(7, negative), MM_E_INPUT);
    CHECK(strstr(err, "--back-to-back") != NULL);
}

int main(void) {
    test_calls();
    test_applies();
    return mm_check_summary("test_back_to_back");
}
