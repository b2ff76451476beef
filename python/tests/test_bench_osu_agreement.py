# SPDX-License-Identifier: BSD-3-Clause
"""bench/osu_agreement.py without MPI: its paired-by-round ratios of two quantities (same round,
and for a state both launches in it), the medians per configuration, and its option checks."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.append(str(REPO / "bench"))  # it imports peers and _launches from beside it (last: shadows nothing)
_spec = importlib.util.spec_from_file_location("bench_osu_agreement", REPO / "bench" / "osu_agreement.py")
agreement = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(agreement)


def _launch(config: str, round_: int, state: str, ns: dict, load1: float = 2.0, **extra) -> dict:
    return {"tool": "mpimeter" if config in ("batch", "single") else config, "config": config, "round": round_,
            "state": state, "ns": ns, "wall_s": 1.0, "load1": load1, "other_cpu_share": 0.5, **extra}


def test_ratios_pair_quantities_of_one_round_and_of_one_state():
    launches = [
        _launch("batch", -1, "fast", {"median": 1.0}),  # the first launch: never a round's
        _launch("batch", 0, "fast", {"median": 300.0}), _launch("osu", 0, "fast", {"avg": 600.0}),
        _launch("osu_p50", 0, "fast", {"avg": 500.0, "p50": 310.0}),
        _launch("batch", 1, "slow", {"median": 400.0}), _launch("osu", 1, "fast", {"avg": 800.0}),
        _launch("batch", 2, "fast", {"median": 320.0}), _launch("osu", 2, "fast", {"avg": 400.0}),
        _launch("osu", 3, "fast", {"avg": 1e6}, error="exit 1"),  # failed: left out
        _launch("batch", 3, "fast", {"median": 330.0}),
    ]
    summary = agreement.summarize(launches)
    pair = summary["ratios"]["batch.median / osu.avg"]
    assert pair["all"]["rounds"] == 3 and pair["all"]["median"] == 0.5  # 0.5, 0.5, 0.8
    assert pair["fast"] == {"median": 0.65, "q1": 0.575, "q3": 0.725, "rounds": 2}  # round 1's states differ
    assert "slow" not in pair
    assert summary["ratios"]["osu_p50.p50 / osu_p50.avg"]["all"]["median"] == 0.62
    assert summary["values"]["batch"]["median_ns"] == {"median": 325.0}  # rounds 0-3, not the first launch
    assert summary["values"]["osu"]["launches"] == 3
    assert summary["load1"] == {"median": 2.0, "min": 2.0, "max": 2.0}


def test_every_pair_names_a_quantity_its_configurations_give():
    # a misspelt pair would never find a value and silently drop out of the summary
    per_mode = {"osu": {"mean", "median", "block_median", "mean_below_10x_median"}, "batch": {"mean", "block_median"},
                "timer_cost": {"wtime_pair_median", "cgt_pair_median"}}
    # as bench/osu_loop.c prints them
    per_mode |= {"osu_cgt": per_mode["osu"], "loop": per_mode["batch"], "batch_dup": per_mode["batch"]}
    gives = {"osu": {"avg"}, "osu_p50": {"avg", "p50"}, "batch": {"median", "mean"}, "single": {"median", "mean"},
             **{name: per_mode[mode] for name, (mode, _) in agreement.LOOPS.items()}}
    for pair in agreement.PAIRS:
        for side in pair:
            config, quantity = side.split(".")
            assert config in agreement.CONFIGS and quantity in gives[config], side


@pytest.mark.parametrize("args, said", [
    (["--size", "100"], "--size 100: mpimeter's launches measure 8, 1024, 65536 B only"),
    (["--rounds", "0"], "--rounds: 0 is out of range"),
    ([], "the following arguments are required: --osu-latency"),
])
def test_a_bad_option_is_one_line_and_exit_2(args, said, tmp_path, capsys):
    osu = tmp_path / "osu_latency"
    osu.write_text("#!/bin/sh\n")
    osu.chmod(0o755)
    given = ["--osu-latency", str(osu), "--bench", str(osu)] if args != [] else ["--bench", str(osu)]
    with pytest.raises(SystemExit) as stopped:
        agreement.parse_args([*given, *args, "--out", str(tmp_path / "out.json")])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert said in err and len(err.strip().splitlines()) == 1
