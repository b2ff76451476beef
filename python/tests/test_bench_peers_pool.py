# SPDX-License-Identifier: BSD-3-Clause
"""bench/peers_pool.py: the ratio of spreads per run and size, the geometric mean and its t
interval over runs, and which runs count (no CPU hogs, enough launches of both sides)."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_peers_pool", REPO / "bench" / "peers_pool.py")
pool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pool)


def _run(default: dict, imb: dict, launches: int = 15, hogs: int = 0) -> dict:
    side = lambda spread: {"launches": launches, "spread_pct": spread}  # noqa: E731
    return {"load": {"cpu_hogs": hogs}, "bench_commit": "abc",
            "summary": {"fast": {"allreduce": {"default": side(default), "imb": side(imb)}}}}


def test_ratios_per_size_skip_a_zero_spread_and_too_few_launches():
    run = _run({"8": 6.0, "1024": 0.0}, {"8": 3.0, "1024": 2.0})
    assert pool.ratios(run, "allreduce", "default", "imb", "fast", 8) == {"8": 2.0}
    assert pool.ratios(_run({"8": 6.0}, {"8": 3.0}, launches=5), "allreduce", "default", "imb", "fast", 8) == {}


def test_pooled_is_the_geometric_mean_with_a_t_interval_on_the_logs():
    out = pool.pooled([0.5, 2.0, 1.0], 0.95)
    assert out["geometric_mean"] == 1.0 and out["runs_at_or_below_1"] == 2
    half = 4.302653 * math.log(2.0) / math.sqrt(3)  # t(0.975, 2) x sd of (-ln 2, ln 2, 0) / sqrt 3
    assert out["interval"] == [round(math.exp(-half), 3), round(math.exp(half), 3)]


def test_runs_with_cpu_hogs_do_not_count(tmp_path: Path):
    (tmp_path / "quiet.json").write_text(json.dumps(_run({"8": 2.0}, {"8": 4.0})))
    (tmp_path / "load.json").write_text(json.dumps(_run({"8": 8.0}, {"8": 4.0}, hogs=2)))
    out = tmp_path / "pool.json"
    subprocess.run([sys.executable, str(REPO / "bench" / "peers_pool.py"), str(tmp_path / "quiet.json"),
                    str(tmp_path / "load.json"), "--out", str(out)], check=True, capture_output=True)
    result = json.loads(out.read_text())
    assert list(result["runs"]) == ["quiet.json"]
    assert result["pooled"]["allreduce default/imb"]["8"]["ratios"] == [0.5]


@pytest.mark.parametrize("args", [["--level", "1.5"], ["--min-launches", "2"]])
def test_bad_options_exit_2(tmp_path: Path, args: list[str]):
    (tmp_path / "r.json").write_text(json.dumps(_run({"8": 2.0}, {"8": 4.0})))
    done = subprocess.run([sys.executable, str(REPO / "bench" / "peers_pool.py"), str(tmp_path / "r.json"), *args],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "--level" in done.stderr


def _launch(config: str, round_: int, value: float) -> dict:
    return {"tool": "mpimeter" if config == "default" else config, "config": config, "op": "allreduce",
            "round": round_, "state": "fast", "values_ns": {"8": value}, "wall_s": 1.0, "load1": 1.0,
            "other_cpu_share": 0.1}


def test_grid_spreads_are_recomputed_from_the_launches_and_ties_count_as_at_or_below(tmp_path: Path):
    # the default 137-146 ns (2 % apart, all 0.14 us on IMB's print grid), IMB printing 0.14 or 0.15
    mine = [137.0, 141.0, 143.0, 146.0, 139.0, 142.0, 144.0, 138.0]
    imb = [140.0, 140.0, 150.0, 140.0, 150.0, 140.0, 150.0, 150.0]
    run = {"load": {"cpu_hogs": 0}, "bench_commit": "abc",
           "summary": {"fast": {"allreduce": {"default": {"launches": 8, "spread_pct": {"8": 2.0}},
                                              "imb": {"launches": 8, "spread_pct": {"8": 0.0}}}}},
           "launches": [_launch("default", k, v) for k, v in enumerate(mine, 1)]
                       + [_launch("imb", k, v) for k, v in enumerate(imb, 1)]}
    (tmp_path / "r.json").write_text(json.dumps(run))
    out = tmp_path / "pool.json"
    for grid, said in ((["--grid"], True), ([], False)):
        subprocess.run([sys.executable, str(REPO / "bench" / "peers_pool.py"), str(tmp_path / "r.json"),
                        "--out", str(out), *grid], check=True, capture_output=True)
        result = json.loads(out.read_text())
        assert result["runs"]["r.json"]["allreduce default/imb at_or_below"] == {"8": said}
        assert result["pooled"]["allreduce default/imb at_or_below"] == {"cells": 1, "at_or_below": int(said)}
    assert result["spread"] == "spread_pct"
