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
