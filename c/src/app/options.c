/* SPDX-License-Identifier: BSD-3-Clause */
/* options.c — the table of mpimeter-bench's options: one row per option with its type, bounds,
 * default, unit, help, where its value lives in mm_config and the setter that stores it (the
 * generic ones in parse_options.c, the others in parse_setters.c and its block's parse_*.c). The
 * parser (parse.c), --help, --describe (describe.c) and the words of every bad-input message come
 * from this table and nowhere else, so that the Python half, which
 * reads --describe, checks the same bounds with the same words (docs/FORMAT.md, "--describe"). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm_clocksync.h"
#include "mm_config.h"
#include "mm_ops.h"
#include "mm_procsync.h"
#include "mm_timer.h"
#include "parse_internal.h"

#define OFF(field) offsetof(mm_config, field)
#define NONE 0, 0, NULL, 0
#define BENCH MM_OPT_F_BENCH
#define SYNC MM_OPT_F_SYNC_CHECK
/* The smallest positive value a float option takes: the clocks count whole nanoseconds, so a
 * time (a window, a budget, a span) below one nanosecond can be neither measured nor waited for;
 * a fraction or a precision below a millionth is finer than any launch's repetitions resolve.
 * Bounds, not "above 0": a denormal such as 1e-300 would pass "above 0" and mean nothing. */
#define MM__NS_IN_US 1e-3
#define MM__NS_IN_S 1e-9
#define MM__SMALLEST_FRACTION 1e-6
#define MM__NS_PER_S_IN_PPM 1e-3 /* a drift of one nanosecond per second */
/* An option whose 0 means "off" (no offsets, never re-sync) takes 0 or at least its minimum. */
#define ZERO MM_OPT_F_OR_ZERO
/* the default_text is the starting value (mm_config_defaults) */
#define DEF MM_OPT_F_DEFAULTED

static const mm_option_spec mm__table[] = {
    {"ops", MM_OPT_NAMES, BENCH, "LIST", "allreduce,bcast,alltoall,barrier", NULL, 0, 0,
     "operations", 0, "operations, comma-separated (see --list-ops)", mm__set_ops},
    {"sizes", MM_OPT_SIZES, BENCH, "SPEC", "8:65536:x8,65536", "bytes", NONE,
     "sizes in bytes (ns for delay): a list (8,1024) and/or geometric ranges FROM:TO:xFACTOR "
     "(8:1048576:x2); or auto:MIN:MAX[:xFACTOR] = the geometric grid from MIN (factor 2) and MAX, "
     "then sizes added per operation where linear interpolation is worst (SKaMPI), until "
     "--sizes-precision or --sizes-budget", mm__set_sizes},
    {"nrep", MM_OPT_INT, DEF | BENCH | MM_OPT_F_AUTO, "N", "300", "repetitions", 1, 1e8, NULL,
     OFF(nrep),
     "recorded repetitions per test; auto[:RULE] = as many as --precision needs, decided every "
     "--nrep-every repetitions between --nrep-min and --nrep-max: RULE ci (the default) = the "
     "median's confidence interval within +-precision of it (Hoefler & Belli), rse = the 25 % "
     "trimmed mean's relative standard error below precision (SKaMPI)", mm__config_parse_nrep},
    {"nrep-min", MM_OPT_INT, DEF | BENCH, "N", "30", "repetitions", 1, 1e8, NULL, OFF(adaptive.nrep_min),
     "--nrep auto: repetitions recorded before the precision may stop a test", mm_option_parse_number},
    {"nrep-max", MM_OPT_INT, DEF | BENCH, "N", "3000", "repetitions", 1, 1e8, NULL, OFF(adaptive.nrep_max),
     "--nrep auto: a test stops here whatever its precision", mm_option_parse_number},
    {"precision", MM_OPT_FLOAT, DEF | BENCH | MM_OPT_F_BELOW, "E", "0.02", NULL, MM__SMALLEST_FRACTION, 1,
     NULL, OFF(adaptive.precision),
     "--nrep auto: the precision to reach, relative to the estimate (ci: both bounds of the "
     "median's interval within +-E of it; rse: standard error below E times the trimmed mean)", mm_option_parse_number},
    {"nrep-confidence", MM_OPT_FLOAT, DEF | BENCH | MM_OPT_F_BELOW, "C", "0.95", NULL,
     MM__SMALLEST_FRACTION, 1, NULL, OFF(adaptive.nrep_confidence),
     "--nrep auto:ci: confidence level 1 - alpha of the median's interval", mm_option_parse_number},
    {"nrep-every", MM_OPT_INT, DEF | BENCH, "K", "10", "repetitions", 1, 1e6, NULL, OFF(adaptive.nrep_every),
     "--nrep auto: decide after every K recorded repetitions (rank 0 collects their run times "
     "outside the timed region)", mm_option_parse_number},
    {"nrep-budget-s", MM_OPT_FLOAT, DEF | BENCH, "S", "10", "s", MM__NS_IN_S, 1e6, NULL,
     OFF(adaptive.nrep_budget_s), "--nrep auto: time budget per test; a test stops at it whatever its "
     "precision", mm_option_parse_number},
    {"sizes-precision", MM_OPT_FLOAT, DEF | BENCH | MM_OPT_F_BELOW, "E", "0.05", NULL,
     MM__SMALLEST_FRACTION, 1, NULL, OFF(adaptive.sizes_precision),
     "--sizes auto: stop adding sizes once every segment's interpolation error is below E", mm_option_parse_number},
    {"sizes-budget", MM_OPT_INT, DEF | BENCH, "N", "16", "sizes", 1, 1024, NULL, OFF(adaptive.sizes_budget),
     "--sizes auto: sizes added per operation, at most", mm_option_parse_number},
    {"warmup", MM_OPT_INT, DEF | BENCH, "N", "10", "repetitions", 0, 1e8, NULL, OFF(measure.warmup),
     "unrecorded repetitions before each test", mm_option_parse_number},
    {"timer", MM_OPT_NAME, DEF | BENCH | SYNC, "NAME", "monotonic", NULL, 0, 0, "timers", OFF(timing.timer),
     "local clock", mm_option_set_name},
    {"clocksync", MM_OPT_NAMES, BENCH | SYNC | MM_OPT_F_AUTO, "NAME", "auto", NULL, 0, 0,
     "clock_syncs", 0,
     "clock synchronization; auto = hca3 when the process sync needs a global clock, else none;"
     " a comma-separated list with --sync-check", mm__set_clocksync},
    {"procsync", MM_OPT_NAME, DEF | BENCH, "NAME", "window", NULL, 0, 0, "process_syncs", OFF(procsync),
     "process synchronization before each repetition", mm_option_set_name},
    {"window-us", MM_OPT_FLOAT, BENCH | MM_OPT_F_AUTO, "US", "auto", "us", MM__NS_IN_US, 1e9,
     NULL, OFF(ps.window_us),
     "window size for --procsync window; auto = from a pilot measurement, adapted per batch", mm__set_window_us},
    {"start-tolerance-ns", MM_OPT_I64, BENCH | MM_OPT_F_AUTO, "NS", "auto", "ns", 1, 1e9, NULL,
     OFF(ps.start_tolerance_ns),
     "a rank whose first timestamp comes later than the planned start plus this makes the "
     "repetition invalid (late_wakeup); auto = 10 timer overheads, at least 1000 ns", mm_option_parse_number},
    {"seed", MM_OPT_SEED, BENCH | SYNC | MM_OPT_F_PER_LAUNCH, "N", "random", NULL, 0,
     18446744073709551615.0, NULL, 0,
     "seed of the shuffled test order and of the virtual clocks (drawn and recorded)", mm__set_seed},
    {"order", MM_OPT_CHOICE, BENCH | MM_OPT_F_PER_LAUNCH, "ORDER", "shuffled (ascending without --out)", NULL, 0, 0,
     "shuffled,ascending", OFF(plan.order_ascending),
     "the order the tests are measured in: shuffled by --seed (what campaigns use: no drift "
     "lines up with the sizes), or ascending = each operation's sizes from the smallest, as OSU "
     "and IMB measure", mm_option_set_choice},
    {"cold-cache", MM_OPT_I64, BENCH, "BYTES", "0", "bytes", 0, 68719476736.0, NULL,
     OFF(measure.cold_cache_bytes), "overwrite a buffer of this size after each repetition, outside the "
     "timed region", mm_option_parse_number},
    {"copy-probe-bytes", MM_OPT_I64, DEF | BENCH, "BYTES", "33554432", "bytes", 0, 1073741824.0, NULL,
     OFF(probe.copy_probe_bytes),
     "the copy-bandwidth probe before the tests (a bound for the results, Hoefler & Belli rule "
     "11): every rank at once copies buffers of 4 KiB, 16 KiB, ... up to BYTES (two buffers of "
     "BYTES per rank, freed before the tests); 0 = no probe", mm_option_parse_number},
    {"copy-probe-from", MM_OPT_PATH, BENCH | MM_OPT_F_PER_LAUNCH, "DIR", "(this launch probes)",
     NULL, 0, 0, NULL, OFF(probe.copy_probe_from),
     "skip the copy probe: the launch folder DIR (with its meta.json) of an earlier launch on "
     "the same machine measured it with --copy-probe-bytes (mpimeter run passes its first "
     "launch's folder to the later ones); recorded as config.copy_probe_from", mm_option_set_path},
    {"mpit-from", MM_OPT_PATH, BENCH | MM_OPT_F_PER_LAUNCH, "DIR", "(this launch reads them)",
     NULL, 0, 0, NULL, OFF(probe.mpit_from),
     "skip reading the MPI library's control variables (MPI_T; ~0.2 s with Open MPI 4.1): the "
     "launch folder DIR (with its meta.json) of an earlier launch of the same binary and "
     "settings read them (mpimeter run passes its first launch's folder to the later ones); "
     "recorded as config.mpit_from", mm_option_set_path},
    {"root", MM_OPT_INTS, DEF | BENCH | MM_OPT_F_AUTO, "LIST", "0", NULL, 0, 2147483647.0, NULL, OFF(plan.roots),
     "root ranks of rooted operations (below the number of ranks), comma-separated: one test "
     "per root, shuffled with the others; all = every rank", mm_option_set_ints},
    {"nprocs", MM_OPT_INTS, BENCH, "LIST", "(every rank)", "ranks", 1, 16777216.0, NULL, OFF(plan.comm_sizes),
     "measure each test on sub-communicators of these sizes, comma-separated (SKaMPI, "
     "NBCBench): MPI_Comm_split keeps the first k ranks (ranks 0 to k-1), the process sync and "
     "the launch's global clock run on them, the other ranks wait at a barrier; each size is "
     "one test (tests[].nprocs), shuffled with the others", mm_option_set_ints},
    {"workpieces", MM_OPT_INTS, DEF | BENCH, "LIST", "16", "pieces", 1, 1048576, NULL, OFF(plan.workpieces),
     "mw-workpieces: the work pieces of size bytes the master hands out per call, "
     "comma-separated: one test per value, shuffled with the others (SKaMPI: MPI_Waitsome "
     "varied over the number of workpieces)", mm_option_set_ints},
    {"subtract-overhead", MM_OPT_FLAG, BENCH, NULL, "off", NULL, 0, 0, NULL, OFF(measure.subtract_overhead),
     "measure the empty timed region (two timer reads, nothing between; the median over 1001, "
     "the largest over the test's ranks) before each test and record it in meta.json "
     "(tests[].overhead_ns): the analysis subtracts it from that test's run times (SKaMPI §3.1); "
     "raw.csv keeps the times as measured", mm_option_set_flag},
    {"batch", MM_OPT_INT, DEF | BENCH, "N", "1", "calls", 1, 1e6, NULL, OFF(measure.batch),
     "calls per recorded repetition: N > 1 = IMB's measurement scheme MS2 (with --procsync "
     "none; or barrier): N calls back to back between the two timestamps, raw.csv holding the "
     "time per call, (end - start) / N (docs/FORMAT.md); calls may pipeline (NBCBench §1.2)", mm_option_parse_number},
    {"back-to-back", MM_OPT_INT, DEF | BENCH, "N", "100", "calls", 0, 1e6, NULL, OFF(measure.back_to_back),
     "after each ping-pong or blocking collective test (outside its timed regions): N calls back "
     "to back timed once, as OSU and IMB time them, recorded as tests[].back_to_back (calls, "
     "mean_ns = total / calls) beside the test's synchronized single calls; fewer calls when N "
     "would take over 10 ms; 0 = off", mm_option_parse_number},
    {"pair", MM_OPT_PAIR, BENCH | MM_OPT_F_AUTO, "A,B", "auto", NULL, 0, 2147483647.0, NULL, 0,
     "the two ranks of the ping-pongs (A starts the round trip); auto = the pair with the largest "
     "1-byte ping-pong latency among rank 0 with the next ranks and a few seeded random pairs "
     "(SKaMPI), measured once per launch before the tests", mm__set_pair},
    {"datatype", MM_OPT_NAME, DEF | BENCH, "NAME", "int", NULL, 0, 0, "datatypes", OFF(measure.datatype),
     "MPI datatype of the buffers (sizes must be multiples of its size)", mm_option_set_name},
    {"reduce-op", MM_OPT_NAME, DEF | BENCH, "NAME", "sum", NULL, 0, 0, "reduce_ops", OFF(measure.reduce_op),
     "reduction operation of reducing collectives (defined for --datatype)", mm_option_set_name},
    {"out", MM_OPT_PATH, BENCH | MM_OPT_F_PER_LAUNCH, "DIR", "(a new temporary folder)", NULL, 0, 0, NULL, OFF(out),
     "the launch folder to write; without it, the quick table: a table of medians on stdout "
     "(one-way for ping-pongs) as each size finishes, in ascending order, no copy probe unless "
     "--copy-probe-bytes is given, --procsync barrier unless --procsync is given, into a new "
     "folder under $TMPDIR (or /tmp), named at the end", mm_option_set_path},
    {"force", MM_OPT_FLAG, BENCH | MM_OPT_F_PER_LAUNCH, NULL, "off", NULL, 0, 0, NULL, OFF(output.force),
     "write into --out even if it exists and is not empty", mm_option_set_flag},
    {"progress", MM_OPT_FLAG, BENCH | MM_OPT_F_PER_LAUNCH, NULL, "on when stderr is a terminal", NULL,
     NONE,
     "print a line per finished test to stderr (operation, size, valid repetitions, median run "
     "time, how it was measured), as it finishes", mm__set_progress},
    {"quiet", MM_OPT_FLAG, BENCH | MM_OPT_F_PER_LAUNCH, NULL, "off", NULL, NONE,
     "no line per finished test, even on a terminal (mpimeter run reads meta.json instead)", mm__set_quiet},
    {"raw", MM_OPT_CHOICE, BENCH, "MODE", "full", NULL, 0, 0, "full,reduced", OFF(output.raw_reduced),
     "full = one row per rank and repetition; reduced = one per repetition", mm_option_set_choice},
    {"nbc-scheme", MM_OPT_CHOICE, BENCH, "NAME", "time", NULL, 0, 0, "time,work", OFF(nbc.work_scheme),
     "nonblocking collectives: the computation between post and wait; time = busy wait on the "
     "timer, work = a workload calibrated per test to take the same time alone", mm_option_set_choice},
    {"nbc-compute-ns", MM_OPT_I64, BENCH | MM_OPT_F_AUTO, "NS", "auto", "ns", 1, 1e11, NULL,
     OFF(nbc.compute_ns),
     "nonblocking collectives: computation time t_b; auto = the test's median blocking time "
     "(I-call + wait), the maximum over ranks", mm_option_parse_number},
    {"test-interval", MM_OPT_I64, BENCH, "BYTES", "none", "bytes", 1, 1e15, NULL,
     OFF(nbc.test_interval_bytes),
     "nonblocking collectives: call MPI_Test ceil(size/BYTES)+1 times, evenly spaced, during "
     "the computation (default: no MPI_Test)", mm_option_parse_number},
    {"cart-dims", MM_OPT_LIST, BENCH, "D1,D2,...", "auto", NULL, 0, 0,
     "the extents of the dimensions, comma-separated whole numbers >= 1 (at most 8), whose "
     "product is the number of ranks; or auto", 0,
     "neighborhood collectives: the periodic Cartesian topology; auto = MPI_Dims_create's "
     "two-dimensional grid", mm__parse_cart_dims},
    {"graph-file", MM_OPT_PATH, BENCH, "FILE", "(the Cartesian topology)", NULL, 0, 0, NULL, OFF(topo.graph_file),
     "neighborhood collectives: a distributed graph instead of the Cartesian topology; a text "
     "file of one line 'R: D1 D2 ...' per rank R, in order from 0, naming the ranks it sends to "
     "('#' starts a comment; at most 65536 bytes; docs/FORMAT.md)", mm_option_set_path},
    /* one-sided operations (c/src/ops/ops_rma.c) */
    {"rma-sync", MM_OPT_CHOICE, BENCH, "MODE", "(required with one-sided data movement)", NULL, 0,
     0, MM_RMA_SYNC_WORDS, OFF(rma.sync),
     "one-sided ops: the synchronization of the epoch timed with each operation; fence, pscw "
     "(post-start-complete-wait), lock / lock-shared (lock, op, unlock), lock-all-flush / "
     "lock-all-flush-local (one lock_all epoch kept open; op + MPI_Win_flush / "
     "MPI_Win_flush_local)", mm__set_rma_sync},
    {"rma-window", MM_OPT_CHOICE, DEF | BENCH, "KIND", "create", NULL, 0, 0, MM_RMA_WINDOW_WORDS, OFF(rma.window),
     "one-sided ops: the window; create = MPI_Win_create over memory allocated before, "
     "allocate = MPI_Win_allocate, allocate-shared = MPI_Win_allocate_shared (all ranks on one "
     "node), dynamic = MPI_Win_create_dynamic + MPI_Win_attach", mm_option_set_choice},
    {"rma-burst", MM_OPT_INT, DEF | BENCH, "N", "64", "operations", 1, 65536, NULL, OFF(rma.burst),
     "one-sided -bw rows: operations back to back in one epoch (OSU's window size -w); "
     "contention patterns (rma-one-put-all, ...): rounds per timed call before one completion "
     "(IMB-RMA's aggregate mode; 1 = non-aggregate)", mm_option_parse_number},
    {"rma-window-bytes", MM_OPT_I64, BENCH | MM_OPT_F_AUTO, "BYTES", "auto", "bytes", 1,
     68719476736.0, NULL, OFF(rma.window_bytes),
     "one-sided ops: each rank's window; auto = what the operation needs (size, or rma-burst x "
     "size for -bw rows), at least 64 bytes; no smaller than what it needs", mm_option_parse_number},
    /* counters (c/src/counters/): for LIST options `choices` holds the words of what is
     * allowed (the names are checked against the library and the machine at launch) */
    {"mpit-pvars", MM_OPT_LIST, BENCH, "LIST", "none", NULL, 0, 0,
     "names of performance variables, comma-separated, or all (mpimeter-bench --list-pvars "
     "lists them)", 0,
     "MPI_T performance variables of the MPI library to read before and after every "
     "repetition, outside the timed region; the deltas per rank and repetition go to "
     "counters.csv; all = every one that can be read here", mm__set_mpit_pvars},
    {"papi", MM_OPT_LIST, BENCH, "EVENTS", "none", NULL, 0, 0,
     "PAPI event names, comma-separated (papi_avail lists them)", 0,
     "hardware counters (PAPI events) read as --mpit-pvars reads its variables; refused when "
     "this binary was built without PAPI or the machine offers no hardware counters", mm__set_papi},
    {"likwid", MM_OPT_LIST, BENCH, "GROUP", "none", NULL, 0, 0,
     "the group (or EVENT:COUNTER,... set) given to likwid-perfctr -m -g (likwid-perfctr -a "
     "lists the groups)", 0,
     "hardware counters of a LIKWID marker region started before and stopped after every "
     "repetition, outside the timed region, into counters.csv as --papi's; every rank must run "
     "under likwid-perfctr -m -g GROUP (e.g. --launcher 'likwid-mpirun -np {np} -m -g GROUP "
     "{cmd}'); refused otherwise, in a build without LIKWID, with --papi, or where LIKWID "
     "cannot count", mm__set_likwid},
    {"virtual-base", MM_OPT_NAME, DEF | BENCH | SYNC, "NAME", "monotonic", NULL, 0, 0, "timers", OFF(timing.virtual_base),
     "timer wrapped by --timer virtual (not virtual)", mm_option_set_name},
    {"virtual-offset-s", MM_OPT_FLOAT, BENCH | SYNC | ZERO, "X", "0", "s", MM__NS_IN_S, 1e6, NULL,
     OFF(timing.virtual_offset_s), "virtual timer: offsets drawn uniformly in +-X s (rank 0: 0)", mm_option_parse_number},
    {"virtual-skew-ppm", MM_OPT_FLOAT, BENCH | SYNC | ZERO, "Y", "0", "ppm", MM__NS_PER_S_IN_PPM, 1e5, NULL,
     OFF(timing.virtual_skew_ppm), "virtual timer: skews of +Y or -Y ppm (rank 0: 0)", mm_option_parse_number},
    {"nfit", MM_OPT_INT, BENCH | SYNC, "N", "32", "points", 1, 1e6, NULL, OFF(cs.params.nfit),
     "clock sync: fit points per edge (jk, hca*)", mm_option_parse_number},
    {"pingpongs", MM_OPT_INT, BENCH | SYNC, "N", "200", "round trips", 1, 1e7, NULL,
     OFF(cs.params.pingpong_cap), "clock sync: max round trips per offset measurement", mm_option_parse_number},
    {"n-nonimproving", MM_OPT_INT, BENCH | SYNC, "N", "20", "round trips", 1, 1e7, NULL,
     OFF(cs.params.n_nonimproving),
     "clock sync: stop after N round trips that did not beat the min RTT", mm_option_parse_number},
    {"min-rounds", MM_OPT_INT, BENCH | SYNC, "N", "10", "round trips", 1, 1e7, NULL,
     OFF(cs.params.min_rounds), "clock sync (skampi): rounds before the early stop may fire", mm_option_parse_number},
    {"fit-span-s", MM_OPT_FLOAT, BENCH | SYNC, "S", "0.2", "s", MM__NS_IN_S, 3600, NULL,
     OFF(cs.params.fit_span_s), "clock sync: spread the fit points over S seconds", mm_option_parse_number},
    {"fit-target-ns", MM_OPT_I64, BENCH | MM_OPT_F_AUTO, "NS", "auto", "ns", 1, 1e9, NULL,
     OFF(cs.params.fit_target_ns),
     "hca3: an edge stops adding fit points (after 8) once its fit's predicted error 5 s after "
     "its last point is at most NS (auto: the start tolerance, when the process sync plans "
     "starts, else every --nfit point over --fit-span-s; 1 keeps every point)", mm_option_parse_number},
    {"resync-s", MM_OPT_FLOAT, BENCH | ZERO, "T", "1 for offset-only syncs, else never", "s", MM__NS_IN_S, 1e6,
     NULL, OFF(cs.resync_s),
     "re-run the clock sync between tests when the last one is older than T s (0 = never)", mm__set_resync_s},
    {"roundtime-budget-s", MM_OPT_FLOAT, DEF | BENCH, "S", "1", "s", MM__NS_IN_S, 1e6, NULL,
     OFF(ps.roundtime_budget_s),
     "roundtime/harmonize: time budget per test (a test it ends before --nrep is marked)", mm_option_parse_number},
    {"bcast-factor", MM_OPT_FLOAT, DEF | BENCH, "K", "2", NULL, 1, 1000, NULL, OFF(ps.bcast_factor),
     "roundtime/harmonize: start = now + K x the measured start delay", mm_option_parse_number},
    {"window-growth-max", MM_OPT_INT, DEF | BENCH, "K", "64", "x the pilot's window", 1, 1024, NULL,
     OFF(ps.window_growth_max),
     "--procsync window with --window-us auto: the window doubles after a batch with more than "
     "a quarter invalid, up to K times the pilot's window (1 = never grows)", mm_option_parse_number},
    {"switch-late-fraction", MM_OPT_FLOAT, DEF | BENCH, "F", "0.5", NULL, MM__SMALLEST_FRACTION, 1, NULL,
     OFF(ps.switch_late_fraction),
     "--procsync window with --window-us auto: a test whose repetitions start late (late_start, "
     "late_wakeup) in more than this fraction of a batch at the window's cap, or in two batches "
     "in a row, goes on with roundtime (redoing late repetitions); one whose roundtime batch is "
     "late above it too goes on with barrier; recorded per test (1 = never switch)", mm_option_parse_number},
    {"launch-budget-s", MM_OPT_FLOAT, DEF | BENCH, "S", "240", "s", MM__NS_IN_S, 1e7, NULL,
     OFF(ps.launch_budget_s),
     "time budget of the launch's tests: each test may take what is left of it divided by the "
     "tests left (at least a tenth of an equal share); a test its budget ends is incomplete "
     "(ended_by budget) and the launch goes on", mm_option_parse_number},
    {"sync-check", MM_OPT_FLAG, SYNC | MM_OPT_F_MODE, NULL, "off", NULL, NONE,
     "check the clock syncs named in --clocksync instead of benchmarking", mm__set_mode_sync_check},
    {"check-at", MM_OPT_FLOATS, DEF | SYNC | ZERO, "LIST", "0,1,2,5,10", "s", MM__NS_IN_S, 3600, NULL, 0,
     "--sync-check: seconds after the sync to measure residuals (non-decreasing)", mm__set_check_at},
    {"json", MM_OPT_FLAG, SYNC, NULL, "off", NULL, 0, 0, NULL, OFF(check.json), "--sync-check: print one JSON object", mm_option_set_flag},
    {"inject-error", MM_OPT_NAME, BENCH | MM_OPT_F_HIDDEN, "OP", "none", NULL, 0, 0,
     "operations", OFF(inject.error_op),
     "test only: give this operation's calls an invalid root or reduction, so that MPI returns "
     "an error", mm_option_set_name},
    {"inject-late-wakeup-us", MM_OPT_FLOAT, BENCH | MM_OPT_F_HIDDEN | ZERO, "US", "0", "us", MM__NS_IN_US, 1e6,
     NULL, OFF(inject.late_wakeup_us),
     "test only: the last rank sleeps this long past the planned start of every 4th repetition", mm_option_parse_number},
    {"inject-sync-slope-ppm", MM_OPT_FLOAT, BENCH | MM_OPT_F_HIDDEN | ZERO, "PPM", "0", "ppm",
     MM__NS_PER_S_IN_PPM, 1e6, NULL, OFF(inject.sync_slope_ppm),
     "test only: after each sync of a drift-aware clock sync, the last rank's model gets this "
     "spurious slope (anchored at the sync's end)", mm_option_parse_number},
    {"inject-fault", MM_OPT_NAME, BENCH | MM_OPT_F_HIDDEN, "KIND:OP:SIZE", "none", NULL, 0, 0, NULL, 0,
     "test only: rank 0 crashes (KIND crash: SIGKILL) or hangs (hang: SIGSTOP) at the start of "
     "operation OP's test of SIZE", mm__set_inject_fault},
    {"validate", MM_OPT_NPROCS, MM_OPT_F_INFO, "NP", "", "ranks", 1, 16777216.0, NULL,
     OFF(run.validate_nprocs),
     "check the options as a launch of NP ranks would (no MPI needed), print the resolved "
     "configuration as JSON and exit (0, or 2 with the message)", mm_option_parse_number},
    {"list-pvars", MM_OPT_FLAG, MM_OPT_F_INFO, NULL, "", NULL, NONE,
     "list the MPI library's performance variables (MPI_T pvars: name, class, datatype, "
     "binding, readable here) and exit; starts MPI (under mpirun, or alone)", mm__set_mode_list_pvars},
    {"list-algorithms", MM_OPT_FLAG, MM_OPT_F_INFO, NULL, "", NULL, NONE,
     "list the collective algorithms the MPI library lets a user select (MPI_T control variables: "
     "Open MPI coll_tuned_<op>_algorithm, MPICH MPIR_CVAR_<OP>_INTRA_ALGORITHM) as JSON and exit; "
     "with --ops, only those operations' (MPICH's names are confirmed by MPICH, a process per "
     "candidate: seconds per variable); starts MPI (under mpirun, or alone)", mm__set_mode_list_algorithms},
    {"describe", MM_OPT_FLAG, MM_OPT_F_INFO, NULL, "", NULL, NONE,
     "print what this binary can do (options, registries) as JSON and exit", mm__set_mode_describe},
    {"list-ops", MM_OPT_FLAG, MM_OPT_F_INFO, NULL, "", NULL, NONE,
     "list the operations and exit", mm__set_mode_list_ops},
    {"version", MM_OPT_FLAG, MM_OPT_F_INFO, NULL, "", NULL, NONE, "print the version and exit", mm__set_mode_version},
    {"help", MM_OPT_FLAG, MM_OPT_F_INFO, NULL, "", NULL, NONE, "this text", mm__set_mode_help},
};

const mm_option_spec *mm_options(size_t *n) {
    *n = sizeof mm__table / sizeof mm__table[0];
    return mm__table;
}

const mm_option_spec *mm_option_find(const char *name, size_t name_len) {
    size_t n;
    const mm_option_spec *t = mm_options(&n);
    for (size_t i = 0; i < n; i++)
        if (strlen(t[i].name) == name_len && strncmp(t[i].name, name, name_len) == 0) return &t[i];
    return NULL;
}
