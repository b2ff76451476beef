# SPDX-License-Identifier: BSD-3-Clause
"""meta.json tests[] of issue 27's C side as the analysis reads them: work pieces, the bound's
data term per test, --subtract-overhead (each test's empty-region time off its run times, raw.csv
untouched, `analyze` naming the tables it changed), and raw.csv rows of tests that ran on a
sub-communicator (ranks 0 … k−1 only). Synthetic launches whose true times are known."""

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from data import synth

from mpimeter import analysis
from mpimeter.cli import main
from mpimeter.io.errors import InputError
from mpimeter.io.meta import read_meta

TRUE_NS = 50_000.0


def _const(op, size, rng, n):
    return TRUE_NS * rng.lognormal(0.0, 0.002, n)


def _edit_tests(folder: Path, **per_op) -> dict:
    """Sets keys of meta.json tests[] per op: per_op = {op: {key: value}}."""
    meta = json.loads((folder / "meta.json").read_text())
    for t in meta["tests"]:
        t.update(per_op.get(t["op"], {}))
    (folder / "meta.json").write_text(json.dumps(meta))
    return meta


def test_the_records_carry_workpieces_bound_and_overhead(tmp_path):
    folder = synth.write_launch(tmp_path / "l", seed=1, nprocs=4, ops=("mw-workpieces", "allreduce"), sizes=(8,),
                                nrep=10, time_fn=_const)
    _edit_tests(folder, **{"mw-workpieces": {"workpieces": 12, "root": 0, "bound_bytes_per_size": None,
                                             "overhead_ns": 25.5},
                           "allreduce": {"bound_bytes_per_size": 1.5}})
    tests = {t.op: t for t in read_meta(folder / "meta.json").tests}
    assert (tests["mw-workpieces"].workpieces, tests["mw-workpieces"].overhead_ns) == (12, 25.5)
    assert tests["mw-workpieces"].bound_bytes_per_size is None
    assert (tests["allreduce"].workpieces, tests["allreduce"].bound_bytes_per_size) == (None, 1.5)
    assert tests["allreduce"].overhead_ns is None  # not asked for: nothing to subtract


@pytest.mark.parametrize("key, value, needle", [
    ("workpieces", 0, "at least 1 work piece"),
    ("overhead_ns", -3, "cannot be negative"),
    ("bound_bytes_per_size", -1.5, "cannot be negative"),
])
def test_impossible_values_are_refused_naming_the_key(tmp_path, key, value, needle):
    folder = synth.write_launch(tmp_path / "l", seed=1, ops=("allreduce",), sizes=(8,), nrep=5, time_fn=_const)
    _edit_tests(folder, allreduce={key: value})
    with pytest.raises(InputError, match=needle) as e:
        read_meta(folder / "meta.json")
    assert key in str(e.value)


def test_subtract_overhead_lowers_the_tests_that_asked_and_says_so(tmp_path):
    """Two launches measured the empty region (1 µs on allreduce, 3 µs on bcast), one did not:
    every per-launch median of the first two is lower by exactly its test's value; raw.csv is
    unchanged; analyze names the tables that used it."""
    camp = tmp_path / "c"
    folders = [synth.write_launch(camp / "launches" / f"{i:03d}", seed=i, ops=("allreduce", "bcast"), sizes=(8,),
                                  nrep=20, time_fn=_const, procsync="barrier", clocksync="none") for i in range(3)]
    raw_before = [(f / "raw.csv").read_bytes() for f in folders]
    plain = analysis.analyze(analysis.load_campaign(camp, cache=False, store=False), outlier="none")
    for f in folders[:2]:
        _edit_tests(f, allreduce={"overhead_ns": 1000.0}, bcast={"overhead_ns": 3000.0})
    res = analysis.analyze(analysis.load_campaign(camp, cache=False, store=False), outlier="none")
    assert [(f / "raw.csv").read_bytes() for f in folders] == raw_before
    for op, off in (("allreduce", 1000.0), ("bcast", 3000.0)):
        before = {s.launch: s.median_ns for s in plain.row(op, 8).per_launch}
        after = {s.launch: s.median_ns for s in res.row(op, 8).per_launch}
        assert after[0] == pytest.approx(before[0] - off) and after[1] == pytest.approx(before[1] - off)
        assert after[2] == pytest.approx(before[2])  # this launch did not ask for it
    out = CliRunner().invoke(main, ["analyze", str(camp), "--no-cache"], terminal_width=400).output
    assert "overhead subtracted: c: allreduce, bcast (2 of 3 launches)" in out
    plain_out = CliRunner().invoke(main, ["analyze", str(camp / "launches" / "002"), "--no-cache"],
                                   terminal_width=400).output
    assert "overhead subtracted" not in plain_out


def test_no_subtraction_below_the_timers_resolution(tmp_path):
    """Hoefler & Belli §4.2.1: 50 µs less 49.995 µs on a 1 ns timer would be 5 ns, below ten timer
    steps: allreduce keeps its times as measured and analyze names it; bcast (1 µs off) is
    subtracted as before."""
    camp = tmp_path / "c"
    folders = [synth.write_launch(camp / "launches" / f"{i:03d}", seed=i, ops=("allreduce", "bcast"), sizes=(8,),
                                  nrep=20, time_fn=_const, procsync="barrier", clocksync="none") for i in range(2)]
    plain = analysis.analyze(analysis.load_campaign(camp, cache=False, store=False), outlier="none")
    for f in folders:
        _edit_tests(f, allreduce={"overhead_ns": TRUE_NS - 5.0}, bcast={"overhead_ns": 1000.0})
    res = analysis.analyze(analysis.load_campaign(camp, cache=False, store=False), outlier="none")
    for op, off in (("allreduce", 0.0), ("bcast", 1000.0)):
        before = {s.launch: s.median_ns for s in plain.row(op, 8).per_launch}
        after = {s.launch: s.median_ns for s in res.row(op, 8).per_launch}
        assert after == pytest.approx({k: v - off for k, v in before.items()})
    allreduce = next(x.test for x in read_meta(folders[0] / "meta.json").tests if x.op == "allreduce")
    assert res.campaign.reductions.overhead_kept == {("c", 0, allreduce), ("c", 1, allreduce)}
    out = " ".join(CliRunner().invoke(main, ["analyze", str(camp), "--no-cache"]).output.split())
    assert ("overhead not subtracted where the result would be below 10 timer steps (Hoefler & Belli §4.2.1; "
            "kept as measured): c/allreduce/8 (2 launches)") in out
    # the same launches read one by one (the reader's per-launch path) keep it too
    one = analysis.analyze(analysis.load_campaign(folders[0], cache=False, store=False), outlier="none")
    assert one.row("allreduce", 8).per_launch[0].median_ns == pytest.approx(plain.row("allreduce", 8).per_launch[0].median_ns)
    assert one.row("bcast", 8).per_launch[0].median_ns == pytest.approx(plain.row("bcast", 8).per_launch[0].median_ns - 1000.0)


def _sub_launch(folder: Path, *, keep_outside: bool = False) -> Path:
    """4 ranks; the allreduce test ran on the first 2 (tests[].nprocs 2), the bcast on all 4."""
    synth.write_launch(folder, seed=3, nprocs=4, ops=("allreduce", "bcast"), sizes=(8,), nrep=10, time_fn=_const)
    meta = _edit_tests(folder, allreduce={"nprocs": 2})
    raw = pd.read_csv(folder / "raw.csv")
    ranks = raw["test"].map({t["test"]: t["nprocs"] if "nprocs" in t else 4 for t in meta["tests"]})
    (raw if keep_outside else raw[raw["rank"] < ranks]).to_csv(folder / "raw.csv", index=False)
    return folder


def test_a_sub_communicator_test_has_rows_of_its_own_ranks_only(tmp_path):
    res = analysis.analyze(analysis.load_campaign(_sub_launch(tmp_path / "ok"), cache=False, store=False))
    assert sorted((r.op, r.nprocs) for r in res.rows) == [("allreduce", 2), ("bcast", 4)]
    with pytest.raises(InputError, match=r"ran on a communicator of 2 ranks \(tests\[\]\.nprocs\), but raw.csv "
                                         r"has 10 rows of rank 2"):
        analysis.load_campaign(_sub_launch(tmp_path / "extra", keep_outside=True), cache=False, store=False)
    # a rank of the communicator without rows is still refused, with the test's communicator size
    folder = _sub_launch(tmp_path / "short")
    raw = pd.read_csv(folder / "raw.csv")
    first = json.loads((folder / "meta.json").read_text())["tests"]
    alltest = next(t["test"] for t in first if t["op"] == "allreduce")
    raw[~((raw["test"] == alltest) & (raw["rank"] == 1))].to_csv(folder / "raw.csv", index=False)
    with pytest.raises(InputError, match=r"no rows of rank 1 .*says nprocs 2, so ranks 0 … 1"):
        analysis.load_campaign(folder, cache=False, store=False)
