# SPDX-License-Identifier: BSD-3-Clause
"""Issue 27, the rest of the analysis keyed by the process count p: launch effects and machine
states, the matched comparison, guidelines, counters, the bound model and the scaling view's
bounds, on synthetic ``--np LIST`` campaigns (one p per launch, interleaved as ``mpimeter run``
plans them) and sub-communicators inside one launch, built so that pooling the process counts
gives a wrong answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from data import synth
from data.store_campaigns import probes
from data.synth_counters import add_counters, follows, independent

from mpimeter import analysis
from mpimeter.analysis import guidelines
from mpimeter.analysis.bounds import bounds

TimeOf = Callable[[int, int], Callable]  # (p, launch index) -> write_launch's time_fn


def np_campaign(root: Path, launches_per_p: dict[int, int], time_of: TimeOf | dict[str, TimeOf], *,
                ops=("bcast",), sizes=(8, 1024), nrep: int = 40, seed: int = 0,
                meta_of: Callable[[int, int, dict], None] | None = None) -> Path:
    """Launches at each p of ``launches_per_p``, in rounds over the p (launch index = order),
    per alternative (``time_of``: one for ``openmpi``, or one per alternative name), laid out
    and recorded in campaign.json (``np`` per launch) as ``mpimeter run --np LIST`` does;
    ``meta_of(p, index, meta)`` may change a launch's meta.json."""
    times = time_of if isinstance(time_of, dict) else {"openmpi": time_of}
    launches = []
    for k, (alt, time_fn) in enumerate(times.items()):
        index = 0
        for r in range(max(launches_per_p.values())):
            for p, count in launches_per_p.items():
                if r >= count:
                    continue
                folder = f"{alt}/launches/{index:03d}"
                launch_seed = seed * 1000 + 100 * k + index
                synth.write_launch(root / folder, seed=launch_seed, nprocs=p, ops=ops, sizes=sizes, nrep=nrep,
                                   time_fn=time_fn(p, index), schema=2)
                if meta_of is not None:
                    meta = json.loads((root / folder / "meta.json").read_text())
                    meta_of(p, index, meta)
                    (root / folder / "meta.json").write_text(json.dumps(meta))
                launches.append({"alternative": alt, "index": index, "folder": folder, "seed": launch_seed,
                                 "status": "complete", "np": p})
                index += 1
    nps = list(launches_per_p)
    (root / "campaign.json").write_text(json.dumps({
        "schema_version": 1, "command": "mpimeter run (synthetic)", "bench_args": [], "launcher": "local",
        "np": max(nps), "np_list": nps, "launches_per_alternative": max(launches_per_p.values()), "seed": seed,
        "alternatives": [{"name": alt, "mpi": alt, "env": {}} for alt in times], "launches": launches}))
    return root


def _analyze(folder: Path) -> analysis.AnalysisResult:
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False))


def _lognormal(base: Callable[[str, int], float], factor: float = 1.0, sigma: float = 0.01):
    def fn(op, size, rng, n):
        return factor * base(op, size) * rng.lognormal(0.0, sigma, n)
    return fn


# --- launch effects and states ------------------------------------------------------------

def state_campaign(root: Path, *, seed: int, slowdown: float = 1.0) -> Path:
    """p = 2 flips between a fast and a slow state (0.4×) that the cache-line probe tells apart
    (as on the test machine, issue 31); p = 4 has no states, and its launches' probe reads in the
    fast range. Pooled over p, the slower group would hold the p = 4 launches, whose probe values
    lie among the faster ones': no property would separate it."""
    rng = np.random.default_rng(seed)
    fast_at_2 = set(rng.permutation(np.arange(0, 24, 2))[:6].tolist())  # launches 0, 2, … ran p = 2

    def time_of(p, index):
        state = 0.4 if index in fast_at_2 else 1.0
        return _lognormal(lambda op, size: (20_000.0 if p == 4 else 10_000.0) + size, slowdown * (
            state if p == 2 else 1.0) * float(rng.lognormal(0.0, 0.02)))

    def meta_of(p, index, meta):
        fast = p == 4 or index in fast_at_2
        rtt = float(rng.uniform(49, 111) if fast else rng.uniform(344, 414))
        meta["probes"] = {"cacheline_rtt_ns": [{"ranks": [0, 1], "host": "h", "cpus": [0, 1], "rtt_ns": rtt}]}
    return np_campaign(root, {2: 12, 4: 12}, time_of, meta_of=meta_of, seed=seed)


@pytest.fixture(scope="module")
def states_pair(tmp_path_factory):
    root = tmp_path_factory.mktemp("multip_states")
    return (_analyze(state_campaign(root / "a", seed=1)),
            _analyze(state_campaign(root / "b", seed=2, slowdown=1.1)))


def test_states_are_found_per_p(states_pair):
    res, _ = states_pair
    for r in res.rows:
        if r.nprocs == 2:
            assert [(s.stratum, s.launches) for s in r.per_state] == [("faster", 6), ("slower", 6)]
            assert r.per_state[1].median_ns / r.per_state[0].median_ns == pytest.approx(2.5, rel=0.05)
        else:
            assert r.per_state == ()  # p = 4 ran in one state
    (effect,) = res.launch_effects
    at_2 = {li.index for li in res.campaign.launches if li.meta.nprocs == 2}
    assert effect.nprocs == 2 and set(effect.low_launches) | set(effect.high_launches) == at_2
    (states,) = res.states
    assert states.nprocs == 2 and states.explained and "cache-line" in states.property
    assert [len(s.launches) for s in states.states] == [6, 6]
    (said,) = [w for w in res.warnings if w.code == "states"]
    assert said.message.startswith(f"{states.alternative} at p = 2: ")
    doc = res.to_dict()
    assert doc["states"][0]["nprocs"] == 2 and doc["launch_effects"][0]["nprocs"] == 2


def test_gate_matches_states_at_their_p_only(states_pair):
    base, cand = states_pair
    res = analysis.gate(base, cand, max_slowdown=0.05)
    by_p = {(r.nprocs, r.stratified) for r in res.rows}
    assert by_p == {(2, True), (4, False)}
    # the 10 % slowdown: found within the states at p = 2, pooled at p = 4
    assert {r.nprocs for r in res.rows if r.regression} == {2, 4}
    assert "van Elteren" in res.test


# --- guidelines -----------------------------------------------------------------------------

def test_guidelines_judge_each_p(tmp_path):
    """bcast is monotone in size at p = 2 and not at p = 4 (8 B slower than 1 KiB there)."""
    def time_of(p, index):
        return _lognormal(lambda op, size: 1000.0 + size if p == 2 else (5000.0 if size == 8 else 2000.0))
    res = _analyze(np_campaign(tmp_path / "c", {2: 5, 4: 5}, time_of))
    out = guidelines.check(res, kinds=("monotony",))
    assert sorted((r.nprocs, r.size, r.versus_size, r.violated) for r in out.rows) == [
        (2, 8, 1024, False), (4, 8, 1024, True)]
    (bad,) = out.violations
    assert bad.median_lhs_ns == pytest.approx(5000.0, rel=0.02) and bad.launches_lhs == 5


# --- counters -------------------------------------------------------------------------------

def test_counter_rows_and_perturbation_are_per_p(tmp_path):
    """The same runs with and without counters; looking slows p = 4 by 30 % and p = 2 not at all."""
    def plain(p, index):
        return _lognormal(lambda op, size: 1000.0 * p + size, sigma=0.02)

    def counted(p, index):
        return _lognormal(lambda op, size: 1000.0 * p + size, 1.3 if p == 4 else 1.0, sigma=0.02)
    root = np_campaign(tmp_path / "both", {2: 6, 4: 6}, {"plain": plain, "counters": counted}, seed=1)
    for i, folder in enumerate(sorted((root / "counters" / "launches").iterdir())):
        add_counters(folder, {"bytes_sent": follows, "queue": independent}, seed=i)
    res = _analyze(root)
    c = res.counters
    pert = c.perturbation
    assert sorted((p.nprocs, p.size) for p in pert) == [(2, 8), (2, 1024), (4, 8), (4, 1024)]
    assert {(p.nprocs, p.significant) for p in pert} == {(2, False), (4, True)}
    assert all(p.ratio == pytest.approx(1.3, rel=0.05) for p in pert if p.nprocs == 4)
    assert sorted({(r.nprocs, r.size, r.metric) for r in c.rows}) == sorted(
        (p, s, m) for p in (2, 4) for s in (8, 1024) for m in ("bytes_sent", "queue"))
    assert all(r.launches == 6 for r in c.rows)
    assert {(r.nprocs, r.explains) for r in c.rows if r.metric == "bytes_sent"} == {(2, True), (4, True)}
    assert len(c.rows_of("counters", "bcast", 8, 4)) == 2


# --- bounds and the scaling view --------------------------------------------------------------

def _bound_meta(p, index, meta, *, per_test: bool = True):
    """The probes and allreduce's bound as the binary states them: for the launch's p in
    ``operations``, and (``per_test``) for each test's own communicator in ``tests[]``."""
    meta["probes"] = probes("alpha")
    meta["operations"] = {"allreduce": {"kind": "collective", "ranks_finish_apart": False, "size_unit": "bytes",
                                        "round_trip": False, "bound_volume": {"formula": "2(p-1)/p x size",
                                                                              "bytes_per_size": 2 * (p - 1) / p}}}
    for t in meta["tests"] if per_test else ():
        q = t.get("nprocs", p)
        t["bound_bytes_per_size"] = 2 * (q - 1) / q


FLOOR = probes("alpha")["latency_floor"]["pairs"][0]["min_rtt_ns"] / 2
LARGE = probes("alpha")["copy_bandwidth"]["sizes"][-1]["median_Bps"]


def _log2p_time(p, index):
    return _lognormal(lambda op, size: 10_000.0 * np.log2(p) + size)


def _bounded_allreduce(tmp_path):
    """allreduce of 64 KiB on 2 and 4 ranks (3 launches each), each launch with the probes the
    bound model reads: the campaign the bounds and the scaling figure are checked on."""
    return _analyze(np_campaign(tmp_path / "c", {2: 3, 4: 3}, _log2p_time, ops=("allreduce",), sizes=(65536,),
                                meta_of=_bound_meta))


def test_bounds_and_the_scaling_view_take_each_ps_volume(tmp_path):
    res = _bounded_allreduce(tmp_path)
    b = bounds(res)
    assert sorted(r.volume_bytes for r in b.rows) == [65536, 1.5 * 65536]  # 2(p-1)/p x size at each p
    at = {p: b.row("openmpi", "allreduce", 65536, p) for p in (2, 4)}
    assert at[2].volume_bytes == 65536 and at[4].volume_bytes == 1.5 * 65536  # 2(p-1)/p x size at each p
    assert at[4].bound_ns == pytest.approx(FLOOR + 1.5 * 65536 / LARGE * 1e9)
    assert b.row("openmpi", "allreduce", 65536) is None  # two p: the caller must say which
    (series,) = res.to_dict()["scaling"]
    assert [pt["bound_ns"] for pt in series["points"]] == pytest.approx([at[2].bound_ns, at[4].bound_ns])
    assert series["ideal_ns"] == pytest.approx(10_000.0 + 65536, rel=0.02) and series["no_bound"] is None
    assert series["below_bound"] == [] and series["below_ideal"] == []
    assert "ideal" in res.to_dict()["scaling_lines"]


def sub_communicator_campaign(root: Path, *, per_test: bool = True,
                              test_fact: Callable[[int, int, int], float] | None = None) -> Path:
    """Three launches of 4 ranks, allreduce 64 KiB at p = 2 (a sub-communicator) and p = 4;
    ``test_fact(launch, test, p)`` overrides the volume a test states."""
    plan = [2, 4]
    for i in range(3):
        folder = root / "openmpi" / "launches" / f"{i:03d}"

        def fn(op, size, rng, n, _i=[0]):
            p = plan[_i[0] % 2]
            _i[0] += 1
            return (10_000.0 * np.log2(p) + size) * rng.lognormal(0.0, 0.01, n)
        synth.write_launch(folder, seed=i, nprocs=4, ops=("allreduce", "allreduce"), sizes=(65536,), nrep=30,
                           time_fn=fn, schema=2)
        meta = json.loads((folder / "meta.json").read_text())
        for t, p in zip(meta["tests"], plan):
            t["nprocs"] = p
        _bound_meta(4, i, meta, per_test=per_test)
        for t, p in zip(meta["tests"], plan):
            if test_fact is not None:
                t["bound_bytes_per_size"] = test_fact(i, t["test"], p)
        (folder / "meta.json").write_text(json.dumps(meta))
        # as the binary writes them: rows of the test's own ranks (0 … p−1) only
        raw = pd.read_csv(folder / "raw.csv")
        ranks = raw["test"].map({t["test"]: t["nprocs"] for t in meta["tests"]})
        raw[raw["rank"] < ranks].to_csv(folder / "raw.csv", index=False)
    return root


def test_a_sub_communicator_takes_the_volume_its_tests_state(tmp_path):
    """One launch of 4 ranks whose meta.json states allreduce's volume for p = 4 (1.5 x size) in
    ``operations``; the tests at p = 2 ran on a sub-communicator of 2 ranks and state 1 x size."""
    res = _analyze(sub_communicator_campaign(tmp_path / "c"))
    b = bounds(res)
    assert sorted(r.volume_bytes for r in b.rows) == [65536, 1.5 * 65536]
    assert b.row("openmpi", "allreduce", 65536, 2).volume_bytes == 65536
    assert b.row("openmpi", "allreduce", 65536, 4).volume_bytes == 1.5 * 65536
    assert b.missing == ()


def test_the_bound_is_the_binarys_fact_not_a_formula_read_again(tmp_path):
    """The tests at p = 2 state 1.25 x size (not what the formula gives at 2): the bound and the
    scaling view's lower bound use the binary's number — Python keeps no copy of the formulas."""
    res = _analyze(sub_communicator_campaign(tmp_path / "c", test_fact=lambda i, t, p: 1.25 if p == 2 else 1.5))
    at2 = bounds(res).row("openmpi", "allreduce", 65536, 2)
    assert at2.volume_bytes == 1.25 * 65536
    (series,) = res.scaling
    assert series.points[0].nprocs == 2 and series.points[0].bound_ns == pytest.approx(at2.bound_ns)
    assert at2.bound_ns == pytest.approx(FLOOR + 1.25 * 65536 / LARGE * 1e9)


def test_launches_that_state_different_volumes_give_no_bound(tmp_path):
    """Launch 1 states another volume at p = 2 than launches 0 and 2: no bound at p = 2, said;
    p = 4, where all agree, keeps its bound."""
    res = _analyze(sub_communicator_campaign(tmp_path / "c",
                                             test_fact=lambda i, t, p: (2.0 if i == 1 else 1.0) if p == 2 else 1.5))
    b = bounds(res)
    assert b.row("openmpi", "allreduce", 65536, 2) is None
    assert b.row("openmpi", "allreduce", 65536, 4).volume_bytes == 1.5 * 65536
    (said,) = [m for m in b.missing if "different volumes" in m]
    assert "allreduce 65536 at p = 2 (1, 2 x size)" in said
    (series,) = res.to_dict()["scaling"]
    assert [pt["bound_ns"] is None for pt in series["points"]] == [True, False]
    assert series["no_bound"].startswith("p = 2: ") and "different volumes" in series["no_bound"]


def test_a_launch_without_per_test_volumes_bounds_its_own_p_only(tmp_path):
    """meta.json before tests[].bound_bytes_per_size: ``operations`` states the volume of the
    launch's p (4); the sub-communicator's p = 2 has no stated volume, so no bound (not a guess)."""
    res = _analyze(sub_communicator_campaign(tmp_path / "c", per_test=False))
    b = bounds(res)
    assert b.row("openmpi", "allreduce", 65536, 2) is None
    assert b.row("openmpi", "allreduce", 65536, 4).volume_bytes == 1.5 * 65536
    assert any("allreduce at p = 2: no launch states the volume" in m for m in b.missing)


def test_the_scaling_view_says_where_there_is_no_bound(tmp_path):
    def time_of(p, index):
        return _lognormal(lambda op, size: 10_000.0 * p + size)
    res = _analyze(np_campaign(tmp_path / "c", {2: 3, 3: 3}, _log2p_time, sizes=(8,)))
    (series,) = res.to_dict()["scaling"]
    assert all(pt["bound_ns"] is None for pt in series["points"])
    assert series["no_bound"].startswith("p = 2, 3: ") and "latency floor" in series["no_bound"]


def test_the_report_draws_the_scaling_figure_with_its_lines(tmp_path):
    from mpimeter.report.scaling import scaling_section

    html = scaling_section(_bounded_allreduce(tmp_path))
    assert "allreduce: median against p, ideal (dotted) and lower bound (dashed)" in html
    assert html.count('stroke-dasharray="6 4"') == 1 and html.count('stroke-dasharray="1 3"') == 1
    assert "no lower bound" not in html


# --- rank tests ------------------------------------------------------------------------------

def test_rank_tests_are_per_p(tmp_path):
    """At p = 4 rank 3 is 30 % slower in every launch. Pooled over p, the launches at p = 2 (no
    ranks 2, 3) would be incomplete blocks of one test that carries no p."""
    def time_of(p, index):
        return _lognormal(lambda op, size: 5_000.0 + size, sigma=0.02)
    root = np_campaign(tmp_path / "c", {2: 6, 4: 6}, time_of, ops=("allreduce",), sizes=(8,))
    for folder in sorted((root / "openmpi" / "launches").iterdir()):
        meta = json.loads((folder / "meta.json").read_text())
        if meta["nprocs"] == 4:  # rank 3's own duration 30 % longer
            import pandas as pd
            raw = pd.read_csv(folder / "raw.csv")
            slow = raw["rank"] == 3
            raw.loc[slow, "end_ns"] = raw.loc[slow, "start_ns"] + (
                (raw.loc[slow, "end_ns"] - raw.loc[slow, "start_ns"]) * 1.3).round().astype("int64")
            raw.to_csv(folder / "raw.csv", index=False)
    res = _analyze(root)
    by_p = {t.nprocs: t for t in res.rank_tests}
    assert sorted(by_p) == [2, 4] and by_p[4].ranks == 4 and by_p[2].ranks == 2
    assert by_p[4].differ and by_p[4].slowest_ranks[0] == 3 and 3 not in by_p[2].slowest_ranks
    assert by_p[4].slowest_medians_ns[0] > 1.2 * by_p[4].slowest_medians_ns[1]


# --- nonblocking collectives ---------------------------------------------------------------------

def test_nonblocking_rows_are_per_p():
    """Launch 0 ran ibcast at p = 2 (overhead 30 ns), launch 1 at p = 4 (300 ns): two rows, not
    one whose median mixes them."""
    from types import SimpleNamespace

    import pyarrow as pa

    from mpimeter.analysis import nbc
    from mpimeter.analysis.pipeline import _with_ranks
    from mpimeter.io.meta import NbcRecord, Operation

    rows = []
    for launch, scale in ((0, 1), (1, 10)):
        for rank in (0, 1):
            for rep in range(3):
                rows.append((launch, rank, rep, 10 * scale, 10 * scale, 10 * scale, 100, 60 * scale))
    cols = list(zip(*rows))
    n = len(rows)
    raw = pa.table({
        "alternative": pa.array(["a"] * n), "launch": pa.array(cols[0], pa.int32()),
        "test": pa.array([0] * n, pa.int32()), "op": pa.array(["ibcast"] * n),
        "size": pa.array([64] * n, pa.int64()), "rank": pa.array(cols[1], pa.int32()),
        "rep": pa.array(cols[2], pa.int32()), "valid": pa.array([1] * n, pa.int8()),
        "start_ns": pa.array([0] * n, pa.int64()), "end_ns": pa.array([1000] * n, pa.int64()),
        **{name: pa.array(cols[3 + i], pa.int64()) for i, name in enumerate(nbc.COMPONENTS)}})
    ops = {"ibcast": Operation(kind="nonblocking", ranks_finish_apart=True, size_unit="bytes")}
    infos = {("a", i): SimpleNamespace(alternative="a", index=i, meta=SimpleNamespace(
        operations=ops, nprocs=p, tests=(SimpleNamespace(op="ibcast", size=64, nprocs=None, root=0,
                                                         nbc=NbcRecord(100, 2, 0, None, 2)),)))
        for i, p in ((0, 2), (1, 4))}
    campaign = SimpleNamespace(launches=tuple(infos.values()), reductions=None)
    reps = _with_ranks(nbc.per_repetition_table(raw, {"ibcast"}), infos)
    out = nbc.nbc_rows(campaign, reps=reps)
    assert [(r.nprocs, r.root, r.launches, r.overhead_ns) for r in out] == [(2, 0, 1, 30.0), (4, 0, 1, 300.0)]


# --- processing schemes --------------------------------------------------------------------------

def test_schemes_are_per_p(tmp_path):
    """Every scheme's headline per (op, size, p): pooled over p, the median of launch headlines
    would fall between 1 µs (p = 2) and 4 µs (p = 4)."""
    from mpimeter.analysis import schemes

    def time_of(p, index):
        return _lognormal(lambda op, size: 1000.0 * (p - 1) ** 2)
    res = _analyze(np_campaign(tmp_path / "c", {2: 3, 4: 3}, time_of, sizes=(8,)))
    rows, _ = schemes.scheme_rows(res.campaign, ("ours", "imb", "mpptest"), ours=res)
    got = {(r.scheme, r.nprocs): r for r in rows}
    assert sorted(got) == sorted((s, p) for s in ("ours", "imb", "mpptest") for p in (2, 4))
    for s in ("ours", "imb"):
        assert got[(s, 2)].launches == got[(s, 4)].launches == 3
        assert got[(s, 4)].headline_ns / got[(s, 2)].headline_ns == pytest.approx(9.0, rel=0.1)


def test_the_model_and_bounds_section_keeps_p_apart(tmp_path):
    """Three sizes at p = 2 and 4: one series, model and bound per p, not one line through both."""
    from mpimeter.analysis.models import fit_models
    from mpimeter.report.models_bounds import closeness_text, models_bounds_section

    def time_of(p, index):
        return _lognormal(lambda op, size: 1000.0 * p + (0.5 * p) * size)
    res = _analyze(np_campaign(tmp_path / "c", {2: 3, 4: 3}, time_of, ops=("allreduce",), sizes=(8, 1024, 65536),
                               meta_of=_bound_meta))
    models, b = fit_models(res), bounds(res)
    assert [round(models.row("openmpi", "allreduce", p).hockney.beta_ns_per_byte, 1) for p in (2, 4)] == [1.0, 2.0]
    html = models_bounds_section(res, models, b)
    assert "openmpi p=2: median" in html and "openmpi p=4: median" in html and "openmpi p=4: bound" in html
    text = closeness_text(res, b)
    assert "openmpi allreduce p=2 at 64 KiB" in text and "openmpi allreduce p=4 at 64 KiB" in text


def test_the_reports_fingerprints_name_their_p(tmp_path):
    from mpimeter.report.html_report import build_report

    def time_of(p, index):
        return _lognormal(lambda op, size: 1000.0 * p + size)
    res = _analyze(np_campaign(tmp_path / "c", {2: 3, 4: 3}, time_of, sizes=(8,)))
    text, _ = build_report(res, None)
    assert 'id="fp-openmpi-bcast-8-p2"' in text and 'id="fp-openmpi-bcast-8-p4"' in text
    assert "8 B · p = 4 · openmpi" in text
    assert "Alternative openmpi, p = 2" in text and "Alternative openmpi, p = 4" in text


def test_one_process_has_no_bound(tmp_path):
    """--nprocs 1,4: on a single process an allreduce sends no message (its volume is 0), so the
    latency floor bounds nothing; it had a bound of the floor, which every median beat ("median
    below its lower bound at p = 1 (data in cache, or the bound's premise does not hold)")."""
    root = tmp_path / "c"
    folder = root / "openmpi" / "launches" / "000"
    plan = [1, 4]

    def fn(op, size, rng, n, _i=[0]):
        p = plan[_i[0] % 2]
        _i[0] += 1
        return (10.0 if p == 1 else 20_000.0 + size) * rng.lognormal(0.0, 0.01, n)
    synth.write_launch(folder, seed=3, nprocs=4, ops=("allreduce", "allreduce"), sizes=(64,), nrep=30,
                       time_fn=fn, schema=2)
    meta = json.loads((folder / "meta.json").read_text())
    for t, p in zip(meta["tests"], plan):
        t["nprocs"] = p
    _bound_meta(4, 0, meta)
    (folder / "meta.json").write_text(json.dumps(meta))
    raw = pd.read_csv(folder / "raw.csv")
    raw[raw["rank"] < raw["test"].map({t["test"]: t["nprocs"] for t in meta["tests"]})].to_csv(
        folder / "raw.csv", index=False)
    res = _analyze(root)
    b = bounds(res)
    assert b.row("openmpi", "allreduce", 64, 1) is None
    assert b.row("openmpi", "allreduce", 64, 4).bound_ns == pytest.approx(FLOOR + 1.5 * 64 / LARGE * 1e9)
    assert not any(r.beats for r in b.rows)
    (said,) = [m for m in b.missing if "p = 1" in m]
    assert "allreduce" in said and "sends no message" in said
    (series,) = res.scaling
    assert [pt.bound_ns is None for pt in series.points] == [True, False]
    assert series.no_bound.startswith("p = 1: ") and "sends no message" in series.no_bound
