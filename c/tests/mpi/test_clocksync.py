# SPDX-License-Identifier: BSD-3-Clause
"""Clock syncs on real ranks against known truth: `mpimeter-bench --sync-check`.

With the `virtual` timer every rank but 0 gets an offset within +-1 s and a skew of +100 or
-100 ppm (from the seed); all ranks share the underlying monotonic clock, so the true error of
each rank's global clock is known. Thresholds:
- right after the sync every algorithm errs by less than 200 us (SYNCED_NS says why);
- 5 s later every offset-only algorithm errs by at least 100 us on some rank (the drift is real
  and this test can see it), every drift-aware one by less than a tenth of the rank's
  uncorrected drift (100 ppm x 5 s / 10 = 50 us; over the check's actual interval, since_sync_s);
- on the plain monotonic clock (one clock, true offset 0) every residual stays below 20 us plus
  10 ppm of the time since the sync (test_monotonic_residuals_stay_below_20us_plus_10ppm says why).
The 4-rank accuracy runs use Open MPI (oversubscribed MPICH ping-pongs take milliseconds);
2 ranks run under both libraries; p = 3 and 5 check the tree algorithms off powers of two.
The algorithms share one wait (every check at its own sync's end + t_s, or later when another
sync ran then: since_sync_s). A rank whose MPI call fails during the residual check ends the
launch with its one line (an interposed MPI library makes one call fail).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import LIBS, QuietRuns, bench_path, launcher, run_bench

ALL = ["none", "skampi", "netgauge", "jk", "hca", "hca2", "hca3", "hca3o"]
OFFSET_ONLY = ["skampi", "netgauge", "hca3o"]
DRIFT_AWARE = ["jk", "hca", "hca2", "hca3"]
SYNCING = OFFSET_ONLY + DRIFT_AWARE
TREE = ["netgauge", "hca", "hca2", "hca3", "hca3o"]
OFFSET_S, SKEW_PPM, SEED = 1.0, 100.0, 20261122
US = 1000  # ns
# What "synced" means on real ranks here: 4 ranks share 2 cores, and under load the scheduler adds
# tens of microseconds to a ping-pong (seen: 21 us for netgauge right after its sync). A sync that
# does not work is off by the virtual offsets, up to a second; its exact accuracy is tested on
# simulated round trips and exact models by the C unit tests (test_offset.c, test_model.c,
# test_clocksync_tree.c) and in simulation (c/tests/simgrid), not here.
SYNCED_NS = 200 * US
# The bounds below are accuracy: on a busy machine (other processes on the cores) a ping-pong
# waits for a scheduler time slice and they fail for that alone. The launches of the 4-rank
# checks are re-run while the machine was busy (conftest.QuietRuns); what every sync must get
# right on any machine - every rank synced, not a second off - is asserted on every run.


def sync_check(lib: str, np: int, algs: list[str], check_at: list[float], *, timer: str,
               seed: int = SEED) -> dict[str, dict]:
    args = ["--sync-check", "--json", "--clocksync", ",".join(algs),
            "--check-at", ",".join(f"{t:g}" for t in check_at), "--timer", timer]
    if timer == "virtual":
        args += ["--virtual-offset-s", OFFSET_S, "--virtual-skew-ppm", SKEW_PPM, "--seed", seed]
    proc = run_bench(lib, np, args, timeout=600)
    doc = json.loads(proc.stdout)  # exactly one JSON object on stdout
    assert list(doc) == ["algorithms"]
    assert [a["name"] for a in doc["algorithms"]] == algs
    for a in doc["algorithms"]:
        assert set(a) == {"name", "sync_duration_s", "checks"}
        assert a["sync_duration_s"] >= 0
        assert [c["t_s"] for c in a["checks"]] == check_at
        # each check at its own sync's end + t_s or later, the checks of one algorithm in order
        since = [c["since_sync_s"] for c in a["checks"]]
        assert all(s >= t - 1e-9 for s, t in zip(since, check_at)), (a["name"], since)
        assert since == sorted(since), (a["name"], since)
        for c in a["checks"]:
            keys = {"t_s", "since_sync_s", "max_abs_residual_ns", "residual_ns"}
            # the truth is known on one host: the virtual timer's base, or the one kernel clock a
            # kernel-wide timer reads (these tests run on one host)
            if timer in ("virtual", "monotonic"):
                keys |= {"max_abs_true_error_ns", "true_error_ns", "max_abs_true_error_all_ns"}
            assert set(c) == keys
            assert len(c["residual_ns"]) == np and c["residual_ns"][0] == 0
            assert c["max_abs_residual_ns"] == max(abs(v) for v in c["residual_ns"])
            if timer in ("virtual", "monotonic"):
                assert len(c["true_error_ns"]) == np and c["true_error_ns"][0] == 0
                assert c["max_abs_true_error_ns"] == max(abs(v) for v in c["true_error_ns"])
                # every rank, read just before the residual check: the same ranks here (p <= 64),
                # apart only by the drift during that check (ms at these skews)
                all_ns, sample_ns = c["max_abs_true_error_all_ns"], c["max_abs_true_error_ns"]
                assert abs(all_ns - sample_ns) <= 0.01 * sample_ns + 100_000, (all_ns, sample_ns)
    return {a["name"]: a for a in doc["algorithms"]}


def check_at(alg: dict, t_s: float) -> dict:
    return next(c for c in alg["checks"] if c["t_s"] == t_s)


CORRECT_NS = 100_000 * US  # a sync that did not happen is off by the virtual offsets, ~1 s


def synced_at_all(got: dict[str, dict], algs: list[str] = SYNCING) -> dict[str, dict]:
    """Correctness on any machine: every syncing algorithm brought every rank within 0.1 s."""
    for alg in algs:
        c = check_at(got[alg], 0)
        assert c.get("max_abs_true_error_ns", c["max_abs_residual_ns"]) < CORRECT_NS, (alg, c)
    return got


@pytest.fixture(scope="module")
def virtual4() -> QuietRuns:
    return QuietRuns(lambda: synced_at_all(sync_check("openmpi", 4, ALL, [0, 5], timer="virtual")),
                     "4 ranks, virtual clocks: sync accuracy")


@pytest.fixture(scope="module")
def monotonic4() -> QuietRuns:
    return QuietRuns(lambda: synced_at_all(sync_check("openmpi", 4, ALL, [0, 5], timer="monotonic")),
                     "4 ranks, one clock: sync residuals")


def test_virtual_offsets_are_there_and_the_residual_sees_them(virtual4):
    """Without a sync the clocks are ~1 s apart, and the residual check measures exactly that:
    the test could fail, and residual and true error agree in sign and size."""
    none = check_at(virtual4.result["none"], 0)
    assert none["max_abs_true_error_ns"] > 1_000 * US

    def agree(got):
        c = check_at(got["none"], 0)
        for est, true in zip(c["residual_ns"], c["true_error_ns"]):
            assert abs(est - true) < 10 * US, c
    virtual4.check(agree)


@pytest.mark.parametrize("alg", SYNCING)
def test_virtual_right_after_sync(virtual4, alg):
    def accurate(got):
        c = check_at(got[alg], 0)
        assert c["max_abs_true_error_ns"] < SYNCED_NS, c
        assert c["max_abs_residual_ns"] < SYNCED_NS, c
    virtual4.check(accurate)


@pytest.mark.parametrize("alg", OFFSET_ONLY)
def test_virtual_offset_only_drift_is_visible_after_5s(virtual4, alg):
    c = check_at(virtual4.result[alg], 5)
    assert c["max_abs_true_error_ns"] >= 100 * US, c


@pytest.mark.parametrize("alg", DRIFT_AWARE)
def test_virtual_drift_aware_below_a_tenth_of_the_drift_after_5s(virtual4, alg):
    def accurate(got):
        c = check_at(got[alg], 5)
        uncorrected = SKEW_PPM * 1e-6 * c["since_sync_s"] * 1e9  # every rank but 0 drifts by +-100 ppm
        for rank, err in enumerate(c["true_error_ns"][1:], start=1):
            assert abs(err) < uncorrected / 10, (rank, c)
    virtual4.check(accurate)


@pytest.mark.parametrize("alg", ALL)
def test_monotonic_residuals_stay_below_20us_plus_10ppm(monotonic4, alg):
    # one shared clock: a sync can only add error. Four ranks share two cores here, and a drift
    # fit over the default 0.2 s span sometimes invents a few ppm under load (seen: 2 ppm, 11 us
    # after 5 s for jk; 5.6 ppm, 28 us for hca3 while other work ran): the bound is an offset
    # error of 20 us plus an invented drift of 10 ppm; a broken sync is off by milliseconds
    def accurate(got):
        for c in got[alg]["checks"]:
            assert c["max_abs_residual_ns"] < 20 * US + 10e-6 * c["since_sync_s"] * 1e9, c
    monotonic4.check(accurate)


def test_monotonic_true_error_of_one_clock_is_its_reading_not_the_residual(monotonic4):
    # every rank reads one kernel clock: `none` is exact, and its true error is a few clock reads,
    # whatever the residual check's own error (4 ranks on 2 cores: up to 1.5 us seen)
    def exact(got):
        for c in got["none"]["checks"]:
            assert c["max_abs_true_error_ns"] < 1_000, c
            assert c["max_abs_true_error_all_ns"] < 1_000, c
    monotonic4.check(exact)


@pytest.mark.parametrize("lib", LIBS)
def test_two_ranks(lib):
    runs = QuietRuns(lambda: synced_at_all(sync_check(lib, 2, ALL, [0], timer="virtual", seed=7)),
                     f"{lib}, 2 ranks: sync accuracy")
    assert check_at(runs.result["none"], 0)["max_abs_true_error_ns"] > 1_000 * US

    def accurate(got):
        for alg in SYNCING:
            c = check_at(got[alg], 0)
            assert c["max_abs_true_error_ns"] < SYNCED_NS, (alg, c)
    runs.check(accurate)


@pytest.mark.parametrize("np", [3, 5])
def test_trees_off_powers_of_two(np):
    """Every rank gets a model: a rank left out or synced against the wrong parent would be off
    by up to a second. The bound is 1 ms, far below that: np ranks on 2 cores under load have
    shown 9 us true error and 18 us residual for a correct tree (netgauge, 3 ranks)."""
    def accurate(got):
        for alg in TREE:
            c = check_at(got[alg], 0)
            assert c["max_abs_true_error_ns"] < 1000 * US, (alg, c)
            assert c["max_abs_residual_ns"] < 1000 * US, (alg, c)
    QuietRuns(lambda: synced_at_all(sync_check("openmpi", np, TREE, [0], timer="virtual", seed=11), TREE),
              f"{np} ranks: tree syncs").check(accurate)


def test_bad_clocksync_name_is_refused():
    proc = run_bench("openmpi", 2, ["--sync-check", "--clocksync", "hca3,nope"], check=False)
    assert proc.returncode == 2
    assert "nope" in proc.stderr and "hca3" in proc.stderr


# --- a failure on one rank during the residual check ------------------------------------------
# An interposed MPI library (the PMPI profiling interface) makes one call of one rank fail as an
# MPI library can: the call returns an error and moves nothing. The residual check's messages:
# the ping-pong (ping tag 101, pong tag 102) and rank 0's result to each rank (tag 103,
# clocksync.c); `none` syncs without messages, so the first of each is the residual check's.
FAIL_ONE_CALL = r"""
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static int fails_now(const char *call, int tag) {
    static int failed = 0;
    const char *rank_s = getenv("MM_TEST_FAIL_RANK"), *call_s = getenv("MM_TEST_FAIL_CALL"),
               *tag_s = getenv("MM_TEST_FAIL_TAG");
    if (failed || !rank_s || !call_s || !tag_s || strcmp(call_s, call) != 0 || atoi(tag_s) != tag) return 0;
    int rank = -1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != atoi(rank_s)) return 0;
    failed = 1;
    return 1;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    return fails_now("send", tag) ? MPI_ERR_OTHER : PMPI_Send(buf, count, type, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status) {
    return fails_now("recv", tag) ? MPI_ERR_OTHER : PMPI_Recv(buf, count, type, source, tag, comm, status);
}
"""


@pytest.fixture(scope="module")
def fail_one_call(tmp_path_factory) -> dict[str, Path]:
    """The interposed library, built per MPI library with its own compiler wrapper."""
    out = {}
    for lib in LIBS:
        src = tmp_path_factory.mktemp(lib) / "fail_one_call.c"
        src.write_text(FAIL_ONE_CALL)
        so = src.with_suffix(".so")
        subprocess.run([f"mpicc.{lib}", "-shared", "-fPIC", "-o", str(so), str(src)], check=True,
                       capture_output=True, text=True, timeout=120)
        out[lib] = so
    return out


@pytest.mark.parametrize("lib", LIBS)
@pytest.mark.parametrize("rank,call,tag", [(0, "send", 103), (1, "recv", 103), (1, "send", 102)],
                         ids=["rank0-result", "rank1-result", "rank1-pong"])
def test_a_failed_call_in_the_residual_check_ends_the_launch_with_its_line(fail_one_call, lib, rank, call, tag):
    """Every rank ends (before, the others waited forever for the failed rank: a ping-pong or a
    gather left half done), with one line of the binary naming the rank, the check and the MPI
    failure, and exit code 1 (a failure while measuring)."""
    env = {"LD_PRELOAD": str(fail_one_call[lib]), "MM_TEST_FAIL_RANK": str(rank),
           "MM_TEST_FAIL_CALL": call, "MM_TEST_FAIL_TAG": str(tag)}
    passed = [a for k, v in env.items() for a in (["-x", f"{k}={v}"] if lib == "openmpi" else ["-genv", k, v])]
    cmd = launcher(lib, 3) + passed + [str(bench_path(lib)), "--sync-check", "--clocksync", "none",
                                       "--check-at", "0", "--timer", "monotonic", "--json"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"the ranks still waited after 120 s: {exc.stderr!r}")
    own = [line for line in proc.stderr.splitlines() if line.startswith("mpimeter-bench:")]
    assert len(own) == 1, proc.stderr
    assert own[0].startswith(f"mpimeter-bench: rank {rank}: --clocksync none: the residuals at 0 s failed: "), own
    assert ("ping-pong: " if tag == 102 else f"MPI_{call.capitalize()}: ") in own[0], own
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert proc.stdout == "", proc.stdout  # no result is printed for a check that failed
