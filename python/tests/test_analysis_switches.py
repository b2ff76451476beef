# SPDX-License-Identifier: BSD-3-Clause
"""A busy machine in the analysis (docs/FORMAT.md, tests[].procsync_switches, tests[].status):
repetitions a test measured after it went on with barrier are not start-spread checked, launches
of one row that ended with different start methods are warned about, and an `incomplete` test (a
time budget ended it) keeps its rows."""

import json

from data.synth import write_campaign

from mpimeter import analysis


def analyzed(folder, **kw):
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False), **kw)


def _edit(camp, edit):
    for p in sorted(camp.glob("launches/*/meta.json")):
        m = json.loads(p.read_text())
        edit(p.parent.name, m)
        p.write_text(json.dumps(m))


def _switch(to, from_rep):
    return {"from": "window", "to": to, "why": "late-twice", "from_rep": from_rep, "at_seq": from_rep + 10,
            "late_fraction": 0.8, "window_ns": 640000}


def test_barrier_repetitions_are_not_start_spread_checked(tmp_path):
    camp = write_campaign(tmp_path / "c", 2, seed=5, nrep=100, schema=2, late_start_fraction=0.2)
    dropped = sum(r.start_spread_dropped for r in analyzed(camp).rows)
    assert dropped > 20

    def to_barrier_at(rep):
        def edit(_, m):
            for t in m["tests"]:
                t["procsync_switches"] = [_switch("roundtime", rep // 2), dict(_switch("barrier", rep), **{"from": "roundtime"})]
        return edit

    _edit(camp, to_barrier_at(50))  # only the first half is checked now: about half as many dropped
    half = sum(r.start_spread_dropped for r in analyzed(camp).rows)
    assert 0 < half < dropped and abs(half - dropped / 2) < 0.25 * dropped
    _edit(camp, to_barrier_at(0))  # barrier from the start: nothing is checked
    assert sum(r.start_spread_dropped for r in analyzed(camp).rows) == 0


def test_launches_that_ended_with_different_methods_are_warned_about(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=6, nrep=40)
    assert "mixed-start-methods" not in {w.code for w in analyzed(camp).warnings}

    def switch_launch_1(name, m):
        if name == "001":
            m["tests"][0]["procsync_switches"] = [_switch("roundtime", 12)]

    _edit(camp, switch_launch_1)
    res = analyzed(camp)
    (w,) = [w for w in res.warnings if w.code == "mixed-start-methods"]
    op = json.loads((camp / "launches" / "001" / "meta.json").read_text())["tests"][0]["op"]
    assert w.message.startswith("1 row(s) were measured with different start methods")
    assert "→ roundtime in launch(es) 001" in w.message and op in w.message
    assert "the window's own policy switched" in w.message and "quieter machine" in w.hint


def test_an_incomplete_test_keeps_its_rows(tmp_path):
    camp = write_campaign(tmp_path / "c", 3, seed=7, nrep=40)
    before = analyzed(camp)

    def incomplete(_, m):
        m["tests"][0]["status"] = "incomplete"
        m["tests"][0]["ended_by"] = "budget"
        m["tests"][0]["nrep_asked"] = 80

    _edit(camp, incomplete)
    after = analyzed(camp)
    # every row still there, in every launch, with its repetitions
    assert [(r.op, r.size, r.launches, r.repetitions) for r in after.rows] == \
        [(r.op, r.size, r.launches, r.repetitions) for r in before.rows]
    assert "budget-ended-tests" in {w.code for w in after.warnings}
    assert "unfinished-test-rows" not in {w.code for w in after.warnings}


def test_repetitions_measured_with_barrier_take_the_local_run_time(tmp_path):
    """Barrier's exit skew (a descheduled rank leaves it late) is not in the run time: from the
    switch on, a repetition's run time is the longest local duration, as the barrier scheme
    defines it; before it, and without a switch, the global clock's."""
    camp = write_campaign(tmp_path / "c", 3, seed=8, nrep=100, schema=2)
    quiet = {(r.op, r.size): r.median_ns for r in analyzed(camp).rows}
    for raw in sorted(camp.glob("launches/*/raw.csv")):  # rank 1 leaves every repetition 1 ms late
        lines = raw.read_text().splitlines()
        head = lines[0].split(",")
        rank, gend = head.index("rank"), head.index("gend_ns")
        out = [lines[0]]
        for line in lines[1:]:
            f = line.split(",")
            if f[rank] == "1":
                f[gend] = str(int(f[gend]) + 1_000_000)
            out.append(",".join(f))
        raw.write_text("\n".join(out) + "\n")
    skewed = {(r.op, r.size): r.median_ns for r in analyzed(camp).rows}
    assert all(skewed[k] > quiet[k] + 900_000 for k in quiet)  # no switch: the global clock holds the skew

    def barrier_from_0(_, m):
        for t in m["tests"]:
            t["procsync_switches"] = [_switch("barrier", 0)]

    _edit(camp, barrier_from_0)
    local = {(r.op, r.size): r.median_ns for r in analyzed(camp).rows}
    assert all(local[k] < quiet[k] * 1.5 + 1000 for k in quiet)
    assert all(local[k] < 100_000 for k in quiet)
    # --clock global is the user's choice: kept as asked
    assert all(r.median_ns > 900_000 for r in analyzed(camp, clock="global").rows)


def test_round_trips_run_back_to_back_from_the_start_take_the_local_run_time_and_are_named_none(tmp_path):
    """A ping-pong the window's policy ran with `none` from its first repetition (why `round-trip`):
    no planned start, so the global clock's skew is not in its run time; its start method reads
    `none`, not `window → none` (the window recorded nothing); launches alike are not mixed."""
    camp = write_campaign(tmp_path / "c", 3, seed=9, nrep=60, schema=2)
    for raw in sorted(camp.glob("launches/*/raw.csv")):  # rank 1's global end 1 ms late
        lines = raw.read_text().splitlines()
        head = lines[0].split(",")
        rank, gend = head.index("rank"), head.index("gend_ns")
        out = [lines[0]] + [",".join(f[:gend] + [str(int(f[gend]) + 1_000_000)] + f[gend + 1:]) if f[rank] == "1"
                            else ",".join(f) for f in (line.split(",") for line in lines[1:])]
        raw.write_text("\n".join(out) + "\n")
    assert all(r.median_ns > 900_000 for r in analyzed(camp).rows)

    def round_trip(_, m):
        for t in m["tests"]:
            t["procsync_switches"] = [{"from": "window", "to": "none", "why": "round-trip", "from_rep": 0,
                                       "at_seq": 0, "late_fraction": None, "window_ns": None}]

    _edit(camp, round_trip)
    res = analyzed(camp)
    assert all(r.median_ns < 100_000 for r in res.rows)
    assert "mixed-start-methods" not in {w.code for w in res.warnings}
    launch = analysis.load_campaign(camp, cache=False, store=False).launches[0]
    assert {analysis.diagnostics.start_methods(launch.meta, t) for t in launch.meta.tests} == {"none"}
