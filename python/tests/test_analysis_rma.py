# SPDX-License-Identifier: BSD-3-Clause
"""One-sided operations in the analysis (issue 28): their run time is the origin's epoch, one way
by definition (never halved); their bandwidth is the bytes the timed call moved over its run time,
summarized with the harmonic mean — size for a latency row, --rma-burst x size for a -bw row
(the multiple the binary states as ``operations[op].bound_volume.bytes_per_size``); rows that
move one element or none (fetch-and-op, compare-and-swap, window creation) get no rate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from data.synth import write_launch

from mpimeter import analysis


def _launch(folder: Path, kind: str, bytes_per_size: float | None) -> Path:
    write_launch(folder, seed=11, ops=("rma-put-bw",), sizes=(8, 4096), nrep=60, schema=2)
    meta_path = folder / "meta.json"
    meta = json.loads(meta_path.read_text())
    op = meta["operations"]["rma-put-bw"]
    op["kind"] = kind
    op["round_trip"] = False
    op["bound_volume"] = (None if bytes_per_size is None else
                          {"formula": "rma-burst x size", "bytes_per_size": bytes_per_size})
    meta_path.write_text(json.dumps(meta))
    return folder


def _rows(folder: Path):
    return analysis.analyze(analysis.load_campaign(folder, cache=False, store=False), outlier="none").rows


def test_a_burst_row_moves_burst_x_size_per_call(tmp_path):
    single = _rows(_launch(tmp_path / "one", "one-sided", 1.0))
    burst = _rows(_launch(tmp_path / "burst", "one-sided", 64.0))
    for s, b in zip(single, burst, strict=True):
        assert not b.one_way and b.median_ns == pytest.approx(s.median_ns)  # never halved
        assert b.bandwidth_Bps == pytest.approx(64 * s.bandwidth_Bps)
        rates = [x.bandwidth_Bps for x in b.per_launch]
        assert b.bandwidth_Bps == pytest.approx(len(rates) / sum(1 / r for r in rates))
        assert s.bandwidth_Bps == pytest.approx(s.size / (s.per_launch[0].mean_ns * 1e-9), rel=0.5)


def test_one_sided_rows_without_a_volume_get_no_rate(tmp_path):
    assert all(r.bandwidth_Bps is None for r in _rows(_launch(tmp_path / "cas", "one-sided", None)))
    # a collective kind with the same volume is not a rate either (it is not between two ranks)
    assert all(r.bandwidth_Bps is None for r in _rows(_launch(tmp_path / "c", "collective", 1.0)))


def _rma_campaign(root: Path, *, record_pair: bool = True) -> Path:
    """Three launches of a pair's put and two contention patterns, each operation entry as the
    binary writes it (uses_pair: the pair's row only; record_pair False: as launches written
    before the key)."""
    from data import synth

    ops = ("rma-put", "rma-one-put-all", "rma-all-put-all")

    def fn(op, size, rng, n):
        return (2.0 if op == "rma-all-put-all" else 1.0) * (2000.0 + size) * rng.lognormal(0.0, 0.01, n)
    synth.write_campaign(root, 3, seed=5, nrep=20, ops=ops, sizes=(8, 1024), time_fn=fn, schema=2)
    for meta_path in sorted(root.glob("launches/*/meta.json")):
        meta = json.loads(meta_path.read_text())
        for op in ops:
            entry = meta["operations"][op]
            entry.update(kind="one-sided", ranks_finish_apart=True, round_trip=False)
            if record_pair:
                entry["uses_pair"] = op == "rma-put"
        meta_path.write_text(json.dumps(meta))
    return root


def test_compare_ops_keeps_a_pairs_one_sided_row_apart_from_the_contention_rows(tmp_path):
    from click.testing import CliRunner

    from mpimeter.cli import main

    camp = _rma_campaign(tmp_path / "c")
    out = CliRunner().invoke(main, ["compare", str(camp), "--ops", "rma-put,rma-all-put-all"])
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1, out.output
    assert "two ranks (a pair)" in out.output and "the whole communicator" in out.output
    # two patterns of every rank are two ways to load the windows: compared
    res = analysis.compare_ops(analysis.analyze(analysis.load_campaign(camp, cache=False, store=False)),
                               "rma-one-put-all", "rma-all-put-all")
    assert [r.size for r in res.rows] == [8, 1024]
    assert all(r.ratio == pytest.approx(2.0, rel=0.05) for r in res.rows)


def test_compare_ops_refuses_one_sided_rows_whose_launches_do_not_say_who_communicates(tmp_path):
    from click.testing import CliRunner

    from mpimeter.cli import main

    camp = _rma_campaign(tmp_path / "c", record_pair=False)
    out = CliRunner().invoke(main, ["compare", str(camp), "--ops", "rma-one-put-all,rma-all-put-all"])
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1, out.output
    assert "uses_pair" in out.output
