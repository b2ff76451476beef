# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --launches auto` with the fake executor (no MPI): pairs stop where their launches
agree, added launches run only the open pairs, campaign.json records the rule and why each pair
stopped, `--resume` continues the same rule, and a forged record is refused."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from mpimeter.campaign import adaptive, plan
from mpimeter.campaign import state as st
from mpimeter.campaign.benchargs import BenchArgs
from mpimeter.campaign.fake import FakeExecutor, arg_value
from mpimeter.campaign.launch_record import LaunchRecord
from mpimeter.campaign.runner import CampaignRunner, new_state

BENCH_ARGS = ["--ops", "bcast,allreduce", "--sizes", "8,1024", "--nrep", "20"]


def make_state(*, alternatives=("openmpi",), rule=None, seed=21):
    rule = rule or adaptive.AdaptiveLaunches(min=6, max=9, precision=0.02)
    alts = [plan.Alternative(a, a, {}) for a in alternatives]
    order = plan.interleave([a.name for a in alts], rule.min, seed)
    return new_state(command="mpimeter run (test)", bench_args=BenchArgs.parse(BENCH_ARGS), launcher="local",
                     np=2, launches=rule.max, seed=seed, alternatives=alts,
                     templates={a.name: "fakempirun -np {np} {cmd}" for a in alts},
                     binaries={a.name: f"/bench/{a.mpi}/bin/mpimeter-bench" for a in alts},
                     timeout_s=60.0, order=order, adaptive=rule)


def wide_allreduce_1024(op: str, size: int) -> float:
    """Launch effects: tight everywhere but allreduce at 1 KiB, whose launches disagree."""
    return 0.3 if (op, size) == ("allreduce", 1024) else 0.0005


def fake(**kw) -> FakeExecutor:
    return FakeExecutor(launch_sigma=wide_allreduce_1024, rep_sigma=0.001, **kw)


def run(state, folder, executor, notify=None):
    return CampaignRunner(state, folder, executor, base_env={"PATH": "/usr/bin"}, notify=notify).run()


def pairs(state) -> dict:
    return {(p.op, p.size): (p.status, p.launches) for p in state.adaptive.pairs}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> SimpleNamespace:
    """The campaign of make_state() and fake(), run once (nine launches, each round analysed):
    the tests that only read it share it (its state, the executor's calls, its folder); a test
    that changes the folder changes a copy."""
    folder = tmp_path_factory.mktemp("adaptive") / "reference"
    state, executor, said = make_state(), fake(), []
    outcome = run(state, folder, executor, notify=said.append)  # the real analysis judges the fake launches
    return SimpleNamespace(state=state, executor=executor, outcome=outcome, folder=folder, said=said)


def test_pairs_stop_where_their_launches_agree_and_added_launches_run_only_open_pairs(reference):
    state, executor, tmp_path = reference.state, reference.executor, reference.folder
    assert reference.outcome.status == "complete"
    # 6 launches: the first at which the interval exists (n = 6 at 96 %); the tight pairs stop
    assert pairs(state) == {("bcast", 8): ("precision", 6), ("bcast", 1024): ("precision", 6),
                            ("allreduce", 8): ("precision", 6), ("allreduce", 1024): ("max", 9)}
    assert [r.index for r in state.launches] == list(range(9))
    assert [r.tests for r in state.launches[:6]] == [None] * 6
    assert [r.tests for r in state.launches[6:]] == [{"ops": ["allreduce"], "sizes": [1024]}] * 3
    for call in executor.calls[6:]:  # the subset is the launch's --ops and --sizes
        assert arg_value(call.argv, "--ops") == "allreduce" and arg_value(call.argv, "--sizes") == "1024"
        assert arg_value(call.argv, "--nrep") == "20"
    meta = json.loads((tmp_path / "launches" / "008" / "meta.json").read_text())
    assert [(t["op"], t["size"]) for t in meta["tests"]] == [("allreduce", 1024)]
    disk = json.loads((tmp_path / "campaign.json").read_text())
    rule = disk["adaptive_launches"]
    assert (rule["rule"], rule["min"], rule["max"], rule["precision"], rule["confidence"]) == \
        ("median-interval", 6, 9, 0.02, 0.95)
    assert rule["interval"] == "hettmansperger-sheather" and rule["interval_level"] == pytest.approx(0.96)
    assert rule["rounds"] == 3 and disk["launches_per_alternative"] == 9
    wide = next(p for p in rule["pairs"] if (p["op"], p["size"]) == ("allreduce", 1024))
    assert wide["status"] == "max" and wide["precision"] > 0.02
    assert wide["low_ns"] < wide["median_ns"] < wide["high_ns"]
    tight = next(p for p in rule["pairs"] if (p["op"], p["size"]) == ("bcast", 8))
    assert tight["precision"] <= 0.02
    assert disk["launches"][6]["tests"] == {"ops": ["allreduce"], "sizes": [1024]}
    assert disk["counts"]["complete"] == 9
    # "complete" alone would read as the precision reached: the pair at the maximum is named
    assert reference.said[-1].startswith("--launches auto: 1 of 4 (alternative, op, size) stopped at the maximum, "
                                         "9 launches, without meeting the rule (the interval within ±0.02 ")
    assert ": openmpi allreduce 1024; campaign.json" in reference.said[-1]


def test_every_pair_precise_adds_no_line_about_the_maximum(tmp_path):
    said = []
    executor = FakeExecutor(launch_sigma=0.0005, rep_sigma=0.001)
    assert run(make_state(), tmp_path, executor, notify=said.append).status == "complete"
    assert not [line for line in said if "maximum" in line]


def test_every_pair_precise_at_the_minimum_adds_nothing(tmp_path):
    state = make_state()
    executor = FakeExecutor(launch_sigma=0.0005, rep_sigma=0.001)
    assert run(state, tmp_path, executor).status == "complete"
    assert len(state.launches) == 6 and state.adaptive.rounds == 0
    assert {s for s, _ in pairs(state).values()} == {"precision"}


def test_resume_continues_the_same_rule(tmp_path, reference):
    ref = reference.state  # uninterrupted
    # a Ctrl-C in the second added launch, then --resume from what campaign.json says
    state = make_state()
    first = fake(script={"launches/007": ["interrupt", "ok"]})
    assert run(state, tmp_path / "c", first).status == "interrupted"
    on_disk = st.load(tmp_path / "c")
    assert on_disk.adaptive is not None and on_disk.adaptive.rounds == 2
    assert [r.status for r in on_disk.launches][-1] == "incomplete"
    second = fake()
    assert run(on_disk, tmp_path / "c", second).status == "complete"
    assert [c.out.name for c in second.calls] == ["007", "008"]  # the interrupted one, then the rule
    assert pairs(on_disk) == pairs(ref)
    assert [(r.index, r.seed, r.tests) for r in on_disk.launches] == \
        [(r.index, r.seed, r.tests) for r in ref.launches]


def test_an_alternative_whose_pairs_are_done_gets_no_launch(tmp_path):
    state = make_state(alternatives=("openmpi", "mpich"))
    rule = state.adaptive
    rule.pairs = [adaptive.PairRecord(alternative="openmpi", op="bcast", size=8, status="precision", launches=6),
                  adaptive.PairRecord(alternative="mpich", op="bcast", size=8, status="precision", launches=6),
                  adaptive.PairRecord(alternative="mpich", op="allreduce", size=1024, status="more", launches=6)]
    runner = CampaignRunner(state, tmp_path, FakeExecutor())
    new = runner._plan_round()
    assert [(r.alternative, r.index, r.tests) for r in new] == \
        [("mpich", 6, {"ops": ["allreduce"], "sizes": [1024]})]
    assert new[0].folder == "mpich/launches/006"
    assert new[0].seed == adaptive.round_seed(state.seed, "mpich", 6)
    # mpich at its maximum: the open pair closes as `max`
    state.launches += [LaunchRecord(alternative="mpich", index=i, folder=f"mpich/launches/{i:03d}", seed=1)
                    for i in range(6, 9)]
    assert runner._plan_round() == []
    assert rule.pairs[2].status == "max"


def test_subset_and_launch_arguments():
    pairs_ = [adaptive.PairRecord(alternative="a", op="barrier", size=0), adaptive.PairRecord(alternative="a",
                                                                                              op="bcast", size=64),
              adaptive.PairRecord(alternative="a", op="allreduce", size=8), adaptive.PairRecord(alternative="a",
                                                                                                op="allreduce",
                                                                                                size=64)]
    tests = adaptive.subset(pairs_, ["barrier"], ["allreduce", "bcast", "barrier"])
    assert tests == {"ops": ["allreduce", "bcast", "barrier"], "sizes": [8, 64]}  # no 0 for barrier
    assert adaptive.subset(pairs_[:1], ["barrier"], ["barrier"]) == {"ops": ["barrier"], "sizes": [0]}
    given = ["--ops", "bcast,allreduce", "--sizes=8,1024", "--nrep", "auto"]
    args = BenchArgs.parse(given)
    assert args.argv() == given and args.ops == ("bcast", "allreduce") and args.sizes == "8,1024"
    assert args.for_tests({"ops": ["bcast"], "sizes": [8]}).argv() == \
        ["--ops", "bcast", "--sizes", "8", "--nrep", "auto"]
    assert args.for_tests(None).argv() == given
    assert BenchArgs.parse(["--nrep", "5"]).for_tests({"ops": ["x"], "sizes": [1]}).argv() == \
        ["--nrep", "5", "--ops", "x", "--sizes", "1"]


def test_settings_and_bench_arguments_refused():
    with pytest.raises(plan.PlanError, match="--launches-min 20 is above --launches-max 10"):
        adaptive.check_settings(20, 10, 0.02, 0.95)
    with pytest.raises(plan.PlanError, match="--launches-precision 0: allowed: a number above 0, below 1"):
        adaptive.check_settings(10, 30, 0, 0.95)
    with pytest.raises(plan.PlanError, match="--launches-confidence 1.0"):
        adaptive.check_settings(10, 30, 0.02, 1.0)
    with pytest.raises(plan.PlanError, match="--launches auto with --sizes auto:8:1024"):
        adaptive.check_bench_args(BenchArgs.parse(["--ops", "bcast", "--sizes", "auto:8:1024"]))


def _forge(folder: Path, change) -> None:
    path = folder / "campaign.json"
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


@pytest.mark.parametrize("change, message", [
    (lambda d: d["adaptive_launches"]["pairs"][0].update(status="done"), "is not one of more, precision, max"),
    (lambda d: d["adaptive_launches"].update(min=40), "is above"),
    (lambda d: d["adaptive_launches"].update(max=12), "is not launches_per_alternative 9"),
    (lambda d: d["adaptive_launches"].update(rule="mean"), "is not 'median-interval'"),
    (lambda d: d["adaptive_launches"]["pairs"][0].update(alternative="elsewhere"), "not an alternative"),
    (lambda d: d["launches"][7].update(tests={"ops": ["barrier"], "sizes": [8]}), "a subset of the campaign's --ops"),
    (lambda d: d["launches"][7].update(tests={"ops": ["bcast"], "sizes": [-1]}), "whole numbers of at least 0"),
    (lambda d: d.update(adaptive_launches=None), "a subset of the campaign's --ops"),
    (lambda d: d["launches"].pop(3), "no record of openmpi #003"),
])
def test_a_forged_record_is_refused(tmp_path, reference, change, message):
    tmp_path = shutil.copytree(reference.folder, tmp_path / "campaign")
    assert st.load(tmp_path).adaptive.pairs == reference.state.adaptive.pairs  # read back as written
    _forge(tmp_path, change)
    with pytest.raises(st.CampaignFileError, match=message.replace("(", r"\(").replace("+", r"\+")):
        st.load(tmp_path)
