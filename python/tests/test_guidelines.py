# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter guidelines` (analysis.guidelines) on synthetic campaigns whose truth is known, and
`mpimeter run --guidelines`'s expansion of --ops (campaign.guideline_plan)."""

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from data.synth import write_campaign

from mpimeter.campaign.guideline_plan import catalogue, ops_with_mockups
from mpimeter.campaign.plan import PlanError
from mpimeter.cli.guidelines import command

MOCKUP = "allreduce-as-reduce-bcast"
SIZES = (8, 16, 32, 64)


def _times(factors):
    """A time function: base 2 µs + 0.5 ns per byte, times factors[op](size), small noise."""
    def fn(op, size, rng, n):
        return (2000.0 + 0.5 * size) * factors.get(op, lambda s: 1.0)(size) * (1 + rng.lognormal(-5.0, 0.3, n))
    return fn


def campaign(root: Path, factors=None, *, launches=8, ops=("allreduce", MOCKUP), sizes=SIZES, seed=1,
             nprocs=2) -> Path:
    """A one-alternative campaign whose launches record ``MOCKUP`` as allreduce's mock-up, as the
    binary writes it (meta.json operations[op].mockup_of)."""
    write_campaign(root, launches, seed=seed, nrep=40, ops=ops, sizes=sizes, schema=2, nprocs=nprocs,
                   time_fn=_times(factors or {}))
    for meta_path in root.glob("launches/*/meta.json"):
        meta = json.loads(meta_path.read_text())
        for op, info in meta["operations"].items():
            if "-as-" in op:
                info.update(kind="mock-up", mockup_of=op.split("-as-")[0])
        meta_path.write_text(json.dumps(meta))
    return root


def run(*args):
    return CliRunner().invoke(command, [str(a) for a in args])


def rows(result, kind):
    return [r for r in json.loads(result.stdout)["rows"] if r["kind"] == kind]


def test_an_operation_slower_than_its_mockup_violates_at_every_size(tmp_path):
    root = campaign(tmp_path / "c", {"allreduce": lambda s: 2.0})
    r = run(root, "--format", "json")
    assert r.exit_code == 0, r.output
    mock = rows(r, "mock-up")
    assert [(m["op"], m["size"], m["versus"]) for m in mock] == [("allreduce", s, MOCKUP) for s in SIZES]
    for m in mock:
        assert m["violated"] and m["nprocs"] == 2 and m["launches_lhs"] == m["launches_rhs"] == 8
        assert 1.9 < m["ratio"] < 2.1 and m["ratio_ci_low"] <= m["ratio"] <= m["ratio_ci_high"]
        assert m["ratio_ci_low"] > 1
        assert m["p_value"] <= m["p_adjusted"] < 0.05
    # more data costs more here, and one call is cheaper than two halves: no other violation
    assert not any(x["violated"] for x in rows(r, "monotony") + rows(r, "split"))
    # of the library's operations only: a mock-up is no operation the guidelines speak of
    assert {x["op"] for x in rows(r, "monotony") + rows(r, "split")} == {"allreduce"}
    assert len(rows(r, "monotony")) == len(SIZES) - 1 and len(rows(r, "split")) == len(SIZES) - 1
    out = json.loads(r.stdout)
    assert out["correction"] == "holm" and out["violations"] == len(SIZES)


def test_an_operation_faster_than_its_mockup_violates_nothing(tmp_path):
    root = campaign(tmp_path / "c", {MOCKUP: lambda s: 1.5})
    r = run(root, "--format", "json", "--kind", "mock-up", "--exit-code")
    assert r.exit_code == 0, r.output
    mock = rows(r, "mock-up")
    assert len(mock) == len(SIZES) and not any(m["violated"] for m in mock)
    assert all(m["ratio"] < 0.8 and m["p_value"] > 0.5 for m in mock)


def test_a_tie_is_no_violation(tmp_path):
    r = run(campaign(tmp_path / "c"), "--format", "json", "--kind", "mock-up")
    assert r.exit_code == 0 and not any(m["violated"] for m in rows(r, "mock-up"))


def _one_kind(tmp_path, kind: str, allreduce_factor):
    """The guideline rows of ``kind`` of a campaign whose allreduce takes ``allreduce_factor(size)``
    times its base time, and (op, size, versus size) of those violated."""
    r = run(campaign(tmp_path / "c", {"allreduce": allreduce_factor}), "--format", "json", "--kind", kind)
    assert r.exit_code == 0, r.output
    found = rows(r, kind)
    return found, [(m["op"], m["size"], m["versus_size"]) for m in found if m["violated"]]


def test_monotony_violation_where_more_data_is_faster(tmp_path):
    # allreduce at 32 bytes takes three times as long as at 64: only that pair is violated
    found, violated = _one_kind(tmp_path, "monotony", lambda s: 3.0 if s == 32 else 1.0)
    assert violated == [("allreduce", 32, 64)]
    bad = next(m for m in found if m["violated"])
    assert bad["ratio"] > 2.5 and bad["median_lhs_ns"] > bad["median_rhs_ns"]


def test_split_violation_where_one_call_costs_more_than_two_halves(tmp_path):
    # 64 bytes cost 4x what 32 do: one call of 64 is slower than two of 32
    found, violated = _one_kind(tmp_path, "split", lambda s: 4.0 if s == 64 else 1.0)
    assert violated == [("allreduce", 64, 32)]
    row = next(m for m in found if m["violated"])
    assert row["median_rhs_ns"] == pytest.approx(2 * next(m["median_lhs_ns"] for m in found
                                                             if m["size"] == 32) * 1, rel=0.2)


def test_holm_runs_over_the_family(tmp_path):
    root = campaign(tmp_path / "c", {"allreduce": lambda s: 2.0})
    out = json.loads(run(root, "--format", "json").stdout)
    p = np.array([r["p_value"] for r in out["rows"]])
    adj = np.array([r["p_adjusted"] for r in out["rows"]])
    order = np.argsort(p)
    expected = np.minimum(1, np.maximum.accumulate(p[order] * (len(p) - np.arange(len(p)))))
    assert np.allclose(adj[order], expected)


def test_table_exit_code_and_violations_only(tmp_path):
    root = campaign(tmp_path / "c", {"allreduce": lambda s: 2.0})
    r = CliRunner(env={"COLUMNS": "300"}).invoke(command, [str(root), "--violations-only", "--exit-code"])
    assert r.exit_code == 1
    assert "allreduce(8) no slower than its mock-up allreduce-as-reduce-bcast(8)" in r.stdout
    assert "4 of 10 guideline rows violated" in r.stdout and "correction: holm" in r.stdout
    assert "allreduce(8) no slower than allreduce(16)" not in r.stdout  # not violated: not shown


def test_a_campaign_without_mockups_is_refused_for_the_mockup_guideline(tmp_path):
    root = campaign(tmp_path / "c", ops=("allreduce",))
    r = run(root)
    assert r.exit_code == 2 and "measured no mock-up" in r.stderr and "mpimeter run --guidelines" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert run(root, "--kind", "monotony,split").exit_code == 0


def test_an_unmeasured_mockup_is_refused(tmp_path):
    root = campaign(tmp_path / "c")
    r = run(root, "--mockup", "allreduce-as-rsb-allgather")
    assert r.exit_code == 2 and "--mockup allreduce-as-rsb-allgather" in r.stderr and MOCKUP in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert run(root, "--mockup", MOCKUP, "--format", "json").exit_code == 0


def test_a_mockup_without_its_operation_at_its_sizes_is_refused(tmp_path):
    root = campaign(tmp_path / "c", ops=(MOCKUP, "bcast"))
    r = run(root)
    assert r.exit_code == 2 and "measured no allreduce" in r.stderr


def test_bad_kind_is_refused(tmp_path):
    r = run(campaign(tmp_path / "c", launches=3), "--kind", "mock-up,speed")
    assert r.exit_code == 2 and "allowed are mock-up, monotony, split" in r.stderr


def test_untestable_guidelines_are_noted(tmp_path):
    root = campaign(tmp_path / "c", sizes=(8, 24), launches=4)
    out = json.loads(run(root, "--format", "json").stdout)
    notes = [w for w in out["warnings"] if w["code"] == "guideline-untestable"]
    assert notes and "split" in notes[0]["message"] and "allreduce" in notes[0]["message"]


def test_two_campaigns_give_each_number_of_ranks(tmp_path):
    two = campaign(tmp_path / "np2", {"allreduce": lambda s: 2.0}, launches=5)
    four = campaign(tmp_path / "np4", launches=5, nprocs=4, seed=7)
    out = json.loads(run(two, four, "--format", "json", "--kind", "mock-up").stdout)
    by_p = {(r["nprocs"], r["violated"]) for r in out["rows"]}
    assert by_p == {(2, True), (4, False)}


DESCRIBED = [{"name": "allreduce"}, {"name": "bcast"}, {"name": "alltoall"},
             {"name": "allreduce-as-reduce-bcast", "mockup": {"of": "allreduce", "calls": ["reduce", "bcast"]}},
             {"name": "allreduce-as-rsb-allgather", "mockup": {"of": "allreduce", "calls": ["x", "y"]}},
             {"name": "bcast-as-scatter-allgather", "mockup": {"of": "bcast", "calls": ["scatter", "allgather"]}}]


def test_run_guidelines_adds_the_mockups_of_each_op():
    assert catalogue(DESCRIBED) == {"allreduce": ["allreduce-as-reduce-bcast", "allreduce-as-rsb-allgather"],
                                    "bcast": ["bcast-as-scatter-allgather"]}
    assert ops_with_mockups(DESCRIBED, "bcast,alltoall") == "bcast,bcast-as-scatter-allgather,alltoall"
    assert ops_with_mockups(DESCRIBED, None) == ("allreduce,allreduce-as-reduce-bcast,allreduce-as-rsb-allgather,"
                                                 "bcast,bcast-as-scatter-allgather")
    # a mock-up asked for is kept once
    assert ops_with_mockups(DESCRIBED, "allreduce-as-reduce-bcast,allreduce") == \
        "allreduce-as-reduce-bcast,allreduce,allreduce-as-rsb-allgather"


def test_run_guidelines_refuses_ops_without_mockups():
    with pytest.raises(PlanError, match="none of --ops alltoall has a mock-up; operations with mock-ups: "
                                        "allreduce, bcast"):
        ops_with_mockups(DESCRIBED, "alltoall")
    with pytest.raises(PlanError, match="no mock-up operations"):
        ops_with_mockups(DESCRIBED[:3], None)


def test_the_built_binary_describes_a_catalogue_run_guidelines_can_expand():
    from mpimeter.campaign import describe, launcher
    bench_dir = launcher.default_bench_dir()
    binaries = [launcher.bench_binary(bench_dir, lib) for lib in launcher.found_libraries(bench_dir)]
    binaries = [b for b in binaries if b.is_file()]
    if not binaries:
        pytest.skip("no mpimeter-bench built")
    ops = ops_with_mockups(describe.describe(binaries[0]).operations, "allreduce,bcast,allgather,reduce").split(",")
    assert ops[:5] == ["allreduce", "allreduce-as-reduce-bcast", "allreduce-as-rsb-allgather",
                       "allreduce-as-rs-allgatherv", "bcast"]
    assert {"allgather-as-alltoall", "allgather-as-allreduce", "reduce-as-allreduce"} <= set(ops)


def test_the_report_lists_the_violations_with_their_evidence(tmp_path):
    from mpimeter import analysis
    from mpimeter.report.guidelines import guidelines_section

    result = analysis.analyze(analysis.load_campaign(campaign(tmp_path / "c", {"allreduce": lambda s: 2.0})))
    html = guidelines_section(result)
    assert "4 of 10 guideline rows violated (mock-up, monotony, split, irregular)" in html
    assert html.count("no slower than its mock-up") == 4 and "<table>" in html
    assert "allreduce(8) no slower than allreduce(16)" not in html  # not violated
    # a campaign without mock-ups: monotony and split only, nothing violated, no table
    plain = analysis.analyze(analysis.load_campaign(campaign(tmp_path / "p", ops=("allreduce",), launches=4)))
    text = guidelines_section(plain)
    assert "0 of 6 guideline rows violated (monotony, split, irregular)" in text and "<table>" not in text


def test_the_states_note_says_what_the_guidelines_do_with_the_states(tmp_path):
    # analyze's "each row is also reported per state" would be false here: guidelines print no row per state
    from data.synth import write_state_campaign

    root = write_state_campaign(tmp_path / "c", 5, 5, seed=3, ops=("allreduce", MOCKUP), sizes=(8, 16))
    for meta_path in root.glob("launches/*/meta.json"):
        meta = json.loads(meta_path.read_text())
        meta["operations"][MOCKUP].update(kind="mock-up", mockup_of="allreduce")
        meta_path.write_text(json.dumps(meta))
    r = run(root, "--format", "json")
    assert r.exit_code == 0, r.output
    said = [w["message"] for w in json.loads(r.stdout)["warnings"] if w["code"] == "states"]
    assert said and all("in which the state cancels; no row is reported per state" in m for m in said)
    assert not any("each row is also reported per state" in m for m in said)
