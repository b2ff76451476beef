# SPDX-License-Identifier: BSD-3-Clause
"""Issue 27 downstream: results keyed by (op, size, p[, root]) — a --np LIST campaign (p per
launch, from campaign.json's plan) and sub-communicators inside one launch (meta.json
tests[].nprocs / root); the scaling view, the root's effect, compare and gate slice by slice,
and compare --ops. Synthetic campaigns whose true times are known."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from data import synth

from mpimeter import analysis
from mpimeter.cli import main

NPS = (2, 4, 8)


def _time(p: int, scale: float = 1.0):
    """Run time growing with ⌈log₂ p⌉ (a tree): 10 µs per level plus 1 ns per byte."""
    def fn(op, size, rng, n):
        return scale * (10_000.0 * np.ceil(np.log2(p)) + size) * rng.lognormal(0.0, 0.01, n)
    return fn


def write_np_campaign(root: Path, rounds: int, *, seed: int = 0, scale: float = 1.0, nps=NPS,
                      ops=("bcast",), sizes=(8, 1024)) -> Path:
    """A campaign of `rounds` launches per p, launch index = round·len(nps) + j as `mpimeter run
    --np LIST` plans them, with the campaign.json that records each launch's np."""
    launches = []
    for r in range(rounds):
        for j, p in enumerate(nps):
            index = r * len(nps) + j
            folder = f"launches/{index:03d}"
            synth.write_launch(root / folder, seed=seed * 1000 + index, nprocs=p, ops=ops, sizes=sizes, nrep=30,
                               time_fn=_time(p, scale))
            launches.append({"alternative": "openmpi", "index": index, "folder": folder,
                             "seed": seed * 1000 + index, "status": "complete", "np": p})
    (root / "campaign.json").write_text(json.dumps({
        "schema_version": 1, "command": "mpimeter run (synthetic)", "bench_args": [], "launcher": "local",
        "np": max(nps), "np_list": list(nps), "launches_per_alternative": rounds, "seed": seed,
        "alternatives": [{"name": "openmpi", "mpi": "openmpi", "env": {}}], "launches": launches}))
    return root


def test_rows_are_keyed_by_p_and_the_scaling_series_follows_log_p(tmp_path):
    camp = write_np_campaign(tmp_path / "c", 4)
    res = analysis.analyze(analysis.load_campaign(camp))
    assert sorted((r.op, r.size, r.nprocs) for r in res.rows) == sorted(
        ("bcast", s, p) for s in (8, 1024) for p in NPS)
    assert all(r.launches == 4 for r in res.rows)
    series = analysis.scaling.scaling_series(res.rows)
    assert len(series) == 2
    for s in series:
        medians = [pt.median_ns for pt in s.points]
        assert [pt.nprocs for pt in s.points] == list(NPS)
        expected = [10_000.0 * np.log2(p) + s.size for p in NPS]
        assert np.allclose(medians, expected, rtol=0.02)
    doc = res.to_dict()
    assert {r["nprocs"] for r in doc["rows"]} == set(NPS) and len(doc["scaling"]) == 2


def test_a_p_mismatch_with_the_plan_is_refused(tmp_path):
    camp = write_np_campaign(tmp_path / "c", 2)
    doc = json.loads((camp / "campaign.json").read_text())
    doc["launches"][0]["np"] = 4  # launch 000 ran at 2
    doc["launches"][1]["np"] = 2
    (camp / "campaign.json").write_text(json.dumps(doc))
    with pytest.raises(analysis.InputError, match="campaign.json planned it with 4 ranks"):
        analysis.load_campaign(camp)


def test_one_p_shows_no_p_column_and_several_do(tmp_path):
    one = synth.write_campaign(tmp_path / "one", 3, seed=1, nrep=20, ops=("bcast",), sizes=(8,))
    several = write_np_campaign(tmp_path / "several", 3)
    out_one = CliRunner().invoke(main, ["analyze", str(one)]).output
    out_several = CliRunner().invoke(main, ["analyze", str(several)]).output
    assert "scaling" not in out_one and " p " not in out_one.splitlines()[1]
    assert "scaling: median" in out_several and "p=2" in out_several and "p=8/p=2" in out_several


def _sub_communicator_launch(folder: Path, seed: int, *, root_cost: dict[int, float] | None = None):
    """One launch of 4 ranks whose tests ran on sub-communicators (tests[].nprocs) and, for
    bcast, at several roots (tests[].root), as mpimeter-bench --nprocs/--root all records them."""
    plan = [(2, None), (4, None)] if root_cost is None else [(4, r) for r in root_cost]

    def fn(op, size, rng, n):
        p, root = plan[fn.i % len(plan)]
        fn.i += 1
        extra = 0.0 if root is None else root_cost[root]
        return (10_000.0 * np.log2(p) + size + extra) * rng.lognormal(0.0, 0.01, n)
    fn.i = 0
    synth.write_launch(folder, seed=seed, nprocs=4, ops=("bcast",) * len(plan), sizes=(8,), nrep=30, time_fn=fn)
    meta = json.loads((folder / "meta.json").read_text())
    for t, (p, root) in zip(meta["tests"], plan):
        t["nprocs"] = p
        if root is not None:
            t["root"] = root
    (folder / "meta.json").write_text(json.dumps(meta))
    # as the binary writes them: rows of the test's own ranks (0 … p−1) only
    raw = pd.read_csv(folder / "raw.csv")
    ranks = raw["test"].map({t["test"]: t["nprocs"] for t in meta["tests"]})
    raw[raw["rank"] < ranks].to_csv(folder / "raw.csv", index=False)


def test_sub_communicators_inside_one_launch_give_rows_per_p(tmp_path):
    for i in range(3):
        _sub_communicator_launch(tmp_path / "c" / "launches" / f"{i:03d}", seed=i)
    res = analysis.analyze(analysis.load_campaign(tmp_path / "c"))
    assert sorted(r.nprocs for r in res.rows) == [2, 4]
    assert res.row("bcast", 8, nprocs=4).median_ns == pytest.approx(20_008, rel=0.02)


def test_the_root_effect_is_found_where_there_is_one_and_not_where_there_is_none(tmp_path):
    for name, cost in (("slow_root", {0: 0.0, 1: 0.0, 2: 5_000.0}), ("same", {0: 0.0, 1: 0.0, 2: 0.0})):
        for i in range(6):
            _sub_communicator_launch(tmp_path / name / "launches" / f"{i:03d}", seed=i, root_cost=cost)
    slow = analysis.scaling.root_effects(analysis.analyze(analysis.load_campaign(tmp_path / "slow_root")).rows)
    same = analysis.scaling.root_effects(analysis.analyze(analysis.load_campaign(tmp_path / "same")).rows)
    assert len(slow) == 1 and slow[0].slowest_root == 2 and slow[0].roots == (0, 1, 2)
    assert slow[0].ratio == pytest.approx(25_008 / 20_008, rel=0.02) and slow[0].p_value < 0.01
    assert len(same) == 1 and same[0].ratio < 1.02 and same[0].p_value > 0.01
    # ε² beside p: the slow root's launches lie apart from the others', the same roots' do not
    assert slow[0].epsilon_squared > 0.5 and same[0].epsilon_squared < 0.3
    assert slow[0].to_dict()["epsilon_squared"] == slow[0].epsilon_squared


def test_compare_and_gate_go_p_by_p(tmp_path):
    # 6 launches per p and side: Holm over 6 rows can reach α = 0.05 (4 could not: 6 × 1/70 > 0.05)
    a = write_np_campaign(tmp_path / "a", 6, seed=1)
    b = write_np_campaign(tmp_path / "b", 6, seed=2, scale=1.3)
    analysed = [analysis.analyze(analysis.load_campaign(p)) for p in (a, b)]  # frozen: compare and gate share them
    res = analysis.compare(analysed)
    assert sorted((r.size, r.nprocs) for r in res.rows) == sorted((s, p) for s in (8, 1024) for p in NPS)
    assert all(r.ratio == pytest.approx(1.3, rel=0.05) for r in res.rows)
    gate = analysis.gate(*analysed)
    assert not gate.passed and {r.nprocs for r in gate.rows} == set(NPS)
    out = CliRunner().invoke(main, ["compare", str(a), str(b)]).output
    header = next(line for line in out.splitlines() if "launches" in line)
    assert " p " in header


def test_compare_ops_within_one_alternative(tmp_path):
    def fn(op, size, rng, n):
        return (1.5 if op == "scan" else 1.0) * (1000.0 + size) * rng.lognormal(0.0, 0.01, n)
    synth.write_campaign(tmp_path / "c", 5, seed=3, nrep=20, ops=("reduce", "scan"), sizes=(8, 64), time_fn=fn)
    res = analysis.compare_ops(analysis.analyze(analysis.load_campaign(tmp_path / "c")), "reduce", "scan")
    assert [r.size for r in res.rows] == [8, 64]
    assert all(r.ratio == pytest.approx(1.5, rel=0.05) and r.significant for r in res.rows)
    out = CliRunner().invoke(main, ["compare", str(tmp_path / "c"), "--ops", "reduce,scan"])
    assert out.exit_code == 0 and "reduce vs scan" in out.output


def test_compare_ops_matches_a_rooted_op_with_an_unrooted_one(tmp_path):
    """As the binary records them: bcast's tests carry a root, allreduce's none (docs/GUIDE.md's
    `compare results/ar --ops allreduce,bcast` found "no size" before)."""
    def fn(op, size, rng, n):
        return (2.0 if op == "allreduce" else 1.0) * (1000.0 + size) * rng.lognormal(0.0, 0.01, n)
    for i in range(5):
        folder = tmp_path / "c" / "launches" / f"{i:03d}"
        synth.write_launch(folder, seed=i, ops=("allreduce", "bcast"), sizes=(8, 64), nrep=20, time_fn=fn)
        meta = json.loads((folder / "meta.json").read_text())
        for t in meta["tests"]:
            t["nprocs"] = meta["nprocs"]
            if t["op"] == "bcast":
                t["root"] = 0
        (folder / "meta.json").write_text(json.dumps(meta))
    res = analysis.compare_ops(analysis.analyze(analysis.load_campaign(tmp_path / "c")), "allreduce", "bcast")
    assert [(r.size, r.root) for r in res.rows] == [(8, 0), (64, 0)]
    assert all(r.ratio == pytest.approx(0.5, rel=0.05) for r in res.rows)


@pytest.mark.parametrize("ops, message", [
    ("reduce", "give two operations"), ("reduce,reduce", "give two different operations"),
    ("reduce,gather", "gather was not measured"),
])
def test_compare_ops_refusals(tmp_path, ops, message):
    synth.write_campaign(tmp_path / "c", 3, seed=3, nrep=20, ops=("reduce", "scan"), sizes=(8,))
    out = CliRunner().invoke(main, ["compare", str(tmp_path / "c"), "--ops", ops])
    assert out.exit_code == 2 and message in out.output and len(out.output.strip().splitlines()) == 1


def test_compare_ops_refuses_a_pair_latency_against_a_collective(tmp_path):
    def fn(op, size, rng, n):
        return (1000.0 + size) * rng.lognormal(0.0, 0.01, n)
    synth.write_campaign(tmp_path / "c", 3, seed=3, nrep=20, ops=("pingpong", "bcast"), sizes=(8,),
                         time_fn=fn, schema=2)
    out = CliRunner().invoke(main, ["compare", str(tmp_path / "c"), "--ops", "pingpong,bcast"])
    assert out.exit_code == 2 and "different patterns" in out.output, out.output
    assert len(out.output.strip().splitlines()) == 1


@pytest.mark.parametrize("truth, family", [
    (lambda p, m: 10_000.0 * np.ceil(np.log2(p)) + m, "log"),
    (lambda p, m: 3_000.0 * (p - 1) + m * (p - 1) / p, "linear"),
])
def test_the_model_in_p_picks_the_family_the_data_follow(tmp_path, truth, family):
    nps = (2, 3, 4, 6, 8, 16)
    launches = []
    for r in range(6):
        for j, p in enumerate(nps):
            index = r * len(nps) + j

            def fn(op, size, rng, n, p=p):
                return truth(p, size) * rng.lognormal(0.0, 0.01, n)
            # a launch effect of 3 %, as real launches have (Hunold & Carpen-Amarie §4.2)
            synth.write_launch(tmp_path / "c" / "launches" / f"{index:03d}", seed=index, nprocs=p, ops=("bcast",),
                               sizes=(8, 4096, 65536), nrep=30, time_fn=fn,
                               launch_factor=float(np.random.default_rng(index).lognormal(0.0, 0.03)))
            launches.append({"alternative": "x", "index": index, "folder": f"launches/{index:03d}", "seed": index,
                             "status": "complete", "np": p})
    (tmp_path / "c" / "campaign.json").write_text(json.dumps({
        "schema_version": 1, "np": 16, "np_list": list(nps), "seed": 0,
        "alternatives": [{"name": "x", "mpi": "openmpi", "env": {}}], "launches": launches}))
    # fit_scaling_models' rows and skips as `model --format json` writes them (each load and
    # analysis of these 36 launches costs seconds: the JSON is the one read of the API's result)
    doc = json.loads(CliRunner().invoke(main, ["model", str(tmp_path / "c"), "--format", "json"]).output)
    rows = doc["scaling_models"]
    assert not doc["scaling_skipped"] and len(rows) == 1
    assert rows[0]["chosen"]["family"] == family and rows[0]["verdict"] == "fits", rows[0]["verdict_text"]
    assert rows[0]["verdict_text"] == f"{family} fits every (p, size)"
    out = CliRunner().invoke(main, ["model", str(tmp_path / "c")])
    assert out.exit_code == 0 and "models in m and p" in out.output
    assert {r["nprocs"] for r in doc["rows"]} == set(nps)  # the size models: one per p


def test_the_model_in_p_says_when_no_family_fits(tmp_path):
    from mpimeter.analysis.scalingmodels import fit_scaling_models

    nps = (2, 4, 8, 16)
    launches = []
    for r in range(6):
        for j, p in enumerate(nps):
            index = r * len(nps) + j

            def fn(op, size, rng, n, p=p):  # quadratic in p: none of the families
                return (500.0 * p * p + size) * rng.lognormal(0.0, 0.01, n)
            synth.write_launch(tmp_path / "c" / "launches" / f"{index:03d}", seed=index, nprocs=p, ops=("bcast",),
                               sizes=(8, 4096), nrep=30, time_fn=fn)
            launches.append({"alternative": "x", "index": index, "folder": f"launches/{index:03d}", "seed": index,
                             "status": "complete", "np": p})
    (tmp_path / "c" / "campaign.json").write_text(json.dumps({
        "schema_version": 1, "np": 16, "np_list": list(nps), "seed": 0,
        "alternatives": [{"name": "x", "mpi": "openmpi", "env": {}}], "launches": launches}))
    rows, _ = fit_scaling_models(analysis.analyze(analysis.load_campaign(tmp_path / "c")))
    assert rows[0].verdict == "misses" and rows[0].text().startswith("none of the families fits")


def test_the_report_has_a_scaling_section_only_when_p_varies(tmp_path):
    from mpimeter.report.html_report import build_report

    several = analysis.analyze(analysis.load_campaign(write_np_campaign(tmp_path / "several", 3)))
    one = analysis.analyze(analysis.load_campaign(
        synth.write_campaign(tmp_path / "one", 3, seed=1, nrep=20, ops=("bcast",), sizes=(8, 64, 1024))))
    text, _ = build_report(several)
    assert "Scaling with the number of processes" in text and "p = 8" in text
    assert "log" in text.split("Scaling with the number of processes")[1]
    text_one, _ = build_report(one)
    assert "Scaling with the number of processes" not in text_one


def test_the_store_and_the_site_keep_p_apart(tmp_path):
    import duckdb

    from mpimeter.site.data import load, samples

    camp = write_np_campaign(tmp_path / "c", 3)
    store = tmp_path / "s.duckdb"
    r = CliRunner().invoke(main, ["store", "add", str(camp), "--store", str(store), "--no-report"])
    assert r.exit_code == 0, r.output
    con = duckdb.connect(str(store), read_only=True)
    rows = con.execute("SELECT op, size, nprocs, launches FROM results ORDER BY size, nprocs").fetchall()
    data = load(con, str(store))
    con.close()
    assert rows == [("bcast", s, p, 3) for s in (8, 1024) for p in NPS]
    assert sorted(s.nprocs for s in data.series()) == list(NPS)  # one history line per p
    # each p's campaign page says the launches of that p (3), not of the alternative (9)
    assert sorted(zip(data.alternatives["nprocs"], data.alternatives["launches"])) == [(p, 3) for p in NPS]
    cid = str(data.campaigns["campaign_id"][0])
    at4 = samples(data, cid, str(data.alternatives["alternative"].iloc[0]), 4)
    assert sorted(at4) == [("bcast", 8), ("bcast", 1024)] and all(len(v) == 3 for v in at4.values())


def test_a_fingerprint_names_its_p_when_there_are_several(tmp_path):
    camp = write_np_campaign(tmp_path / "c", 2)
    out = CliRunner().invoke(main, ["fingerprint", str(camp), "--op", "bcast", "--size", "8", "-o",
                                    str(tmp_path / "fp.svg")])
    assert out.exit_code == 2 and "measured at p = 2, p = 4, p = 8: name one with --np" in out.output
    assert not (tmp_path / "fp.svg").exists()
    out = CliRunner().invoke(main, ["fingerprint", str(camp), "--op", "bcast", "--size", "8", "--np", "4", "-o",
                                    str(tmp_path / "fp.svg")])
    assert out.exit_code == 0 and (tmp_path / "fp.svg").exists()
