# SPDX-License-Identifier: BSD-3-Clause
"""The timer's adequacy for what it timed (Hoefler & Belli 2015 §4.2.1): a note when a row's timed
interval spans fewer than 10 timer steps or the timer's overhead exceeds 5 % of it."""

import json
import subprocess

import numpy as np
from data.synth import write_campaign

from mpimeter import analysis
from mpimeter.campaign import launcher
from mpimeter.warning_codes import lookup


def _campaign(root, *, resolution_ns, overhead_ns, base_ns, ops=("allreduce", "bcast"), batch=None):
    def times(op, size, rng, n):  # every row near base_ns (a ping-pong's round trip: twice it)
        return base_ns * (1 + rng.lognormal(-4.0, 0.3, n))

    # a ping-pong's initiator (rank 0) holds the round trip: its call alone is the run time
    write_campaign(root, 4, seed=3, ops=ops, sizes=(8,), time_fn=times,
                   longest_rank=0 if "pingpong-send-recv" in ops else None)
    for meta_path in (root / "launches").glob("*/meta.json"):
        meta = json.loads(meta_path.read_text())
        meta["timer"].update(resolution_ns=resolution_ns, overhead_ns=overhead_ns)
        if batch is not None:
            meta["config"]["batch"] = batch
        if "pingpong-send-recv" in ops:  # the binary's operations table says it is a round trip
            meta["operations"] = {"pingpong-send-recv": {"kind": "point-to-point", "round_trip": True}}
        meta_path.write_text(json.dumps(meta))
    return analysis.analyze(analysis.load_campaign(root))


def _note(res):
    return next((w for w in res.warnings if w.code == "timer-inadequate"), None)


def test_a_long_interval_on_a_fine_timer_gets_no_note(tmp_path):
    assert _note(_campaign(tmp_path / "c", resolution_ns=1, overhead_ns=20, base_ns=2000)) is None


def test_an_interval_of_few_timer_steps_is_named(tmp_path):
    # 2 µs timed on a 1 µs-step timer (MPI_Wtime in some builds): 2 steps, not 10
    note = _note(_campaign(tmp_path / "c", resolution_ns=1000, overhead_ns=20, base_ns=2000))
    assert note is not None and note.severity.value == "note"
    assert "2 row(s)" in note.message and "c/allreduce/8" in note.message and "Hoefler & Belli" in note.message


def test_an_overhead_above_five_percent_is_named(tmp_path):
    # 300 ns timed with a 20 ns timer overhead: 6.7 %
    note = _note(_campaign(tmp_path / "c", resolution_ns=1, overhead_ns=20, base_ns=300))
    assert note is not None and "overhead 0.02 µs" in note.message


def test_a_batch_spreads_the_timer_over_its_calls(tmp_path):
    # the same 300 ns per call, timed 50 at a time: the interval is 15 µs
    assert _note(_campaign(tmp_path / "c", resolution_ns=1, overhead_ns=20, base_ns=300, batch=50)) is None


def test_a_ping_pong_is_judged_on_its_round_trip(tmp_path):
    # a one-way median of 240 ns is a timed round trip of ~480 ns: 4.2 % overhead, no note; a
    # check on the one-way median would see 8.3 %
    res = _campaign(tmp_path / "c", resolution_ns=1, overhead_ns=20, base_ns=480, ops=("pingpong-send-recv",))
    (row,) = res.rows
    assert np.isclose(row.median_ns, 240, rtol=0.05)
    assert _note(res) is None


def test_the_batch_advice_is_what_the_binary_accepts(tmp_path):
    # the note's hint names --batch with the process syncs that take it: the binary (the one source
    # of the rule) refuses a batch under a campaign's default window and takes it under barrier and
    # none (a launch folder is given: without --out the quick table's barrier is the default)
    hint = lookup("timer-inadequate").hint
    assert "--batch N, with --procsync barrier or none" in hint
    bench = launcher.bench_binary(launcher.default_bench_dir(), "openmpi")
    asked = [str(bench), "--validate", "2", "--ops", "allreduce", "--batch", "4", "--out", str(tmp_path / "launch")]

    def code(*more):
        return subprocess.run([*asked, *more], capture_output=True, text=True, timeout=60).returncode

    assert code() == 2 and code("--procsync", "window") == 2
    assert code("--procsync", "barrier") == 0 and code("--procsync", "none") == 0


def _timer_named(root, name):
    for meta_path in (root / "launches").glob("*/meta.json"):
        meta = json.loads(meta_path.read_text())
        meta["timer"]["name"] = name
        meta_path.write_text(json.dumps(meta))
    return analysis.analyze(analysis.load_campaign(root, cache=False))


def test_the_tsc_is_advised_only_to_launches_that_used_another_timer(tmp_path):
    # 300 ns timed with a 20 ns overhead: the note on either timer; its advice to use --timer tsc
    # could not help launches that already used it
    _campaign(tmp_path / "c", resolution_ns=1, overhead_ns=20, base_ns=300)
    on_tsc = _note(_timer_named(tmp_path / "c", "tsc"))
    assert on_tsc is not None and "--batch N" in on_tsc.hint and "--timer tsc" not in on_tsc.hint, on_tsc.hint
    on_monotonic = _note(_timer_named(tmp_path / "c", "monotonic"))
    assert on_monotonic is not None and "or use a finer timer (--timer tsc)" in on_monotonic.hint


def test_rows_of_several_roots_are_named_apart():
    # --root 0,1: two rows of bcast 8 B; the note named both "a/bcast/8", which read as one row twice
    from types import SimpleNamespace as NS

    from mpimeter.analysis.diagnostics import timer_adequacy

    timer = NS(resolution_ns=1000.0, overhead_ns=20.0, name="monotonic")
    campaign = NS(round_trip_ops=lambda: frozenset(),
                  launches=[NS(alternative="a", meta=NS(timer=timer, config=NS(entries={})))])
    rows = [NS(alternative="a", op="bcast", size=8, nprocs=4, root=root, workpieces=None, median_ns=2000.0)
            for root in (0, 1)]
    note = timer_adequacy(campaign, rows)
    assert "a/bcast/8 p=4 root=0, a/bcast/8 p=4 root=1" in note.message, note.message
    # a campaign of one row per (op, size) keeps the plain names
    assert "a/bcast/8 —" in timer_adequacy(campaign, rows[:1]).message
