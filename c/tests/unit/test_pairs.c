/* SPDX-License-Identifier: BSD-3-Clause */
/* test_pairs.c — the ping-pong pair without MPI: --pair parsing and checks against the number of
 * ranks, the pairs SKaMPI's rule samples (pairs.c), the pick of the largest median, the choice
 * from a survey, and which operations refuse odd or too small rank counts. */
#include <string.h>

#include "mm_bench.h"
#include "mm_check.h"
#include "mm_error.h"
#include "mm_config.h"
#include "mm_ops.h"

static mm_config cfg;
static char err[2048];

static int parse(int argc, const char **argv) {
    err[0] = '\0';
    return mm_config_parse(&cfg, argc, (char **)argv, err, sizeof err);
}

static void test_pair_option(void) {
    const char *given[] = {"b", "--ops", "pingpong-send-recv", "--pair", "3,1", "--validate", "4"};
    CHECK_EQ_INT(parse(7, given), 0);
    CHECK_EQ_INT(cfg.plan.pair_given, 1);
    CHECK_EQ_INT(cfg.plan.pair[0], 3);
    CHECK_EQ_INT(cfg.plan.pair[1], 1);
    const char *automatic[] = {"b", "--ops", "pingpong-send-recv", "--pair", "auto", "--validate", "2"};
    CHECK_EQ_INT(parse(7, automatic), 0);
    CHECK_EQ_INT(cfg.plan.pair_given, 0);
    const char *twice[] = {"b", "--ops", "pingpong-send-recv", "--pair", "0,0", "--validate", "2"};
    CHECK_EQ_INT(parse(7, twice), MM_E_INPUT);
    CHECK(strstr(err, "--pair: '0,0' names rank 0 twice") == err);
    const char *beyond[] = {"b", "--ops", "pingpong-send-recv", "--pair", "0,9", "--validate", "2"};
    CHECK_EQ_INT(parse(7, beyond), MM_E_INPUT);
    CHECK_STR(err, "--pair: 0,9 names rank 9, which is not a rank of this launch; allowed: two "
                   "distinct ranks from 0 to 1, or auto");
    const char *bad[][1] = {{"1"}, {"1,"}, {",1"}, {"1,2,3"}, {"-1,2"}, {"a,b"}, {"1, 2"},
                            {"99999999999,1"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *argv[] = {"b", "--ops", "pingpong-send-recv", "--pair", bad[i][0], "--validate", "2"};
        CHECK_EQ_INT(parse(7, argv), MM_E_INPUT);
        CHECK(strncmp(err, "--pair: ", 8) == 0);
    }
}

static void test_rank_counts(void) {
    char why[256];
    const mm_op *pp = mm_op_find("pingpong-anytag"), *mw = mm_op_find("mw-waitsome");
    const mm_op *simple = mm_op_find("simple-empty");
    CHECK(pp && mw && simple);
    CHECK_EQ_INT(mm_op_check_nprocs(pp, 2, why, sizeof why), 0);
    CHECK_EQ_INT(mm_op_check_nprocs(pp, 4, why, sizeof why), 0);
    CHECK_EQ_INT(mm_op_check_nprocs(pp, 3, why, sizeof why), MM_E_INPUT);
    CHECK_STR(why, "pingpong-anytag needs an even number of ranks, at least 2 (got 3)");
    CHECK_EQ_INT(mm_op_check_nprocs(pp, 1, why, sizeof why), MM_E_INPUT);
    CHECK_EQ_INT(mm_op_check_nprocs(mw, 3, why, sizeof why), 0);
    CHECK_EQ_INT(mm_op_check_nprocs(mw, 1, why, sizeof why), MM_E_INPUT);
    CHECK_EQ_INT(mm_op_check_nprocs(simple, 1, why, sizeof why), 0);
    CHECK((pp->flags & MM_OP_ROUND_TRIP) && !(mw->flags & MM_OP_ROUND_TRIP));
    CHECK(simple->flags & MM_OP_SIZE_UNUSED);
    CHECK(mm_op_find("simple-comm-split")->after != NULL && simple->after == NULL);
}

static void test_sample(void) {
    int pairs[MM_PAIR_MAX_SAMPLES][2];
    /* two ranks: the one pair */
    CHECK_EQ_INT(mm_pair_sample(2, 7, pairs, MM_PAIR_MAX_SAMPLES), 1);
    CHECK(pairs[0][0] == 0 && pairs[0][1] == 1);
    /* four ranks: 0-1, 0-2, 0-3, then every other pair (there are 3 more) */
    int n = mm_pair_sample(4, 7, pairs, MM_PAIR_MAX_SAMPLES);
    CHECK_EQ_INT(n, 6);
    for (int i = 0; i < 3; i++) CHECK(pairs[i][0] == 0 && pairs[i][1] == i + 1);
    for (int i = 0; i < n; i++) {
        CHECK(pairs[i][0] < pairs[i][1]);
        for (int j = 0; j < i; j++) CHECK(pairs[i][0] != pairs[j][0] || pairs[i][1] != pairs[j][1]);
    }
    /* many ranks: rank 0 with the next 16, then 4 seeded distinct pairs, the same for a seed */
    int again[MM_PAIR_MAX_SAMPLES][2];
    n = mm_pair_sample(100, 42, pairs, MM_PAIR_MAX_SAMPLES);
    CHECK_EQ_INT(n, MM_PAIR_NEXT_RANKS + MM_PAIR_RANDOM);
    CHECK(pairs[15][0] == 0 && pairs[15][1] == 16);
    CHECK_EQ_INT(mm_pair_sample(100, 42, again, MM_PAIR_MAX_SAMPLES), n);
    CHECK(memcmp(pairs, again, sizeof(int) * 2 * (size_t)n) == 0);
    for (int i = MM_PAIR_NEXT_RANKS; i < n; i++) {
        CHECK(pairs[i][0] >= 0 && pairs[i][1] < 100 && pairs[i][0] < pairs[i][1]);
        CHECK(!(pairs[i][0] == 0 && pairs[i][1] <= MM_PAIR_NEXT_RANKS));
    }
    CHECK_EQ_INT(mm_pair_sample(1, 1, pairs, MM_PAIR_MAX_SAMPLES), 0);
    CHECK_EQ_INT(mm_pair_sample(100, 1, pairs, 3), 3); /* max respected */
}

static void test_pick(void) {
    double m[] = {300, 900, -1, 900, 10};
    CHECK_EQ_INT(mm_pair_pick(m, 5), 1); /* the first of the largest */
    double failed[] = {-1, -1};
    CHECK_EQ_INT(mm_pair_pick(failed, 2), -1);
    CHECK_EQ_INT(mm_pair_pick(m, 0), -1);
}

/* The choice from a survey is pure: --pair wins without samples; otherwise the surveyed pair
 * with the largest median, its samples copied (the survey's minima are the latency floor's, not
 * the choice's). */
static void test_choose(void) {
    mm_pair_survey survey = {.nsamples = 3, .sample = {{0, 1}, {0, 2}, {1, 3}},
                             .median_rtt_ns = {300, 900, -1}, .min_rtt_ns = {200, 150, -1}};
    mm_pair_choice choice;
    mm_config auto_cfg = {0};
    mm_pair_choose(&auto_cfg, &survey, &choice);
    CHECK_EQ_INT(choice.chosen_by, MM_PAIR_SAMPLED);
    CHECK(choice.pair[0] == 0 && choice.pair[1] == 2);
    CHECK_EQ_INT(choice.nsamples, 3);
    CHECK(choice.median_rtt_ns[2] < 0 && choice.sample[2][1] == 3);
    mm_config given = {.plan = {.pair = {3, 1}, .pair_given = 1}};
    mm_pair_choose(&given, &survey, &choice);
    CHECK_EQ_INT(choice.chosen_by, MM_PAIR_GIVEN);
    CHECK(choice.pair[0] == 3 && choice.pair[1] == 1 && choice.nsamples == 0);
    mm_pair_survey failed = {.nsamples = 1, .sample = {{0, 1}}, .median_rtt_ns = {-1}, .min_rtt_ns = {-1}};
    mm_pair_choose(&auto_cfg, &failed, &choice);
    CHECK(choice.pair[0] == 0 && choice.pair[1] == 1); /* every sample failed: the first pair */
}

int main(void) {
    test_pair_option();
    test_rank_counts();
    test_sample();
    test_pick();
    test_choose();
    return mm_check_summary("test_pairs");
}
