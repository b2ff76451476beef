# SPDX-License-Identifier: BSD-3-Clause
"""bench/drift.py without MPI: its analysis of `mpimeter sync-check --json` output (a virtual
clock's series, built here with known skews: exact expectations), the re-sync advice per clock
and model kind, and the command line it runs."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.append(str(REPO / "bench"))  # drift.py imports _launches from beside it (last: shadows nothing)
_spec = importlib.util.spec_from_file_location("bench_drift", REPO / "bench" / "drift.py")
drift = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(drift)

CHECKS = list(drift.CHECK_AT_S)
DATA = Path(__file__).parent / "data" / "drift"


def _algorithm(name: str, errors_per_rank: list, *, truth: bool) -> dict:
    """One algorithm of the sync-check JSON: rank r's error at t is errors_per_rank[r](t) (rank 0:
    0); the residual is the error plus a check's noise of 7 ns."""
    checks = []
    for t in CHECKS:
        errors = [0] + [round(f(t)) for f in errors_per_rank[1:]]
        residual = [0] + [e + 7 for e in errors[1:]]
        check = {"t_s": t, "max_abs_residual_ns": max(abs(r) for r in residual), "residual_ns": residual}
        if truth:
            check.update(max_abs_true_error_ns=max(abs(e) for e in errors), true_error_ns=errors)
        checks.append(check)
    return {"name": name, "sync_duration_s": 0.01, "checks": checks}


def _line(offset_ns: float, ppm: float):
    return lambda t: offset_ns + ppm * 1000 * t


def test_an_offset_model_under_skew_breaks_first_and_its_drift_is_the_skew():
    # skampi on a virtual clock, skews +10 / -10 ppm: rank 1 reaches 1 us between 56 and 100 ms
    alg = _algorithm("skampi", [None, _line(30, 10), _line(-20, -10)], truth=True)
    out = drift.analyse_algorithm(alg, model="offset", tolerance_ns=1000)
    assert out["basis"] == "true_error"  # the exact error, not the residual, when the run knew it
    assert out["max_abs_error_ns"][:5] == [130, 210, 350, 590, 1030]
    assert out["hold"] == {"held_s": 0.056, "first_beyond_s": 0.1, "spikes_s": []}
    rates = {d["rank"]: d["rate_ppm"] for d in out["drift"]}
    assert rates == pytest.approx({1: 10, 2: -10}, rel=1e-3)
    projected = {d["rank"]: d["projected_hold_s"] for d in out["drift"]}
    assert projected == pytest.approx({1: 0.097, 2: 0.098}, rel=1e-2)


def test_a_linear_model_holds_and_without_truth_the_residual_is_the_basis():
    # hca3 on the real clock (truth unknown): 0.01 ppm of invented drift on rank 1 only
    alg = _algorithm("hca3", [None, _line(-50, 0.01), _line(20, 0)], truth=False)
    out = drift.analyse_algorithm(alg, model="linear", tolerance_ns=1000)
    assert out["basis"] == "residual"
    assert out["max_abs_error_ns"][-1] == abs(round(-50 + 10 * 100)) + 7
    assert out["hold"] == {"held_s": 100, "first_beyond_s": None, "spikes_s": []}  # 957 ns at 100 s
    by_rank = {d["rank"]: d for d in out["drift"]}
    assert by_rank[1]["projected_hold_s"] == pytest.approx((1000 + 43) / 10, rel=1e-2)  # beyond the last check
    assert by_rank[2]["projected_hold_s"] is None  # flat: it never reaches it


def test_ranks_outside_the_sample_are_skipped():
    alg = _algorithm("hca3", [None, _line(0, 0.01), _line(0, 0.01)], truth=False)
    for check in alg["checks"]:
        check["residual_ns"][2] = None
    out = drift.analyse_algorithm(alg, model="linear", tolerance_ns=1000)
    assert [d["rank"] for d in out["drift"]] == [1]


def _run(clock: str, mpi: str, np_: int, algs: list[dict]) -> dict:
    return {"clock": clock, "mpi": mpi, "np": np_, "algorithms": algs}


def test_resync_advice_per_clock_library_and_model_kind():
    offset_virtual = drift.analyse_algorithm(_algorithm("skampi", [None, _line(30, 10)], truth=True),
                                             model="offset", tolerance_ns=1000)
    linear_virtual = drift.analyse_algorithm(_algorithm("hca3", [None, _line(0, 0.05)], truth=True),
                                             model="linear", tolerance_ns=1000)  # 1 us at 20 s
    offset_real = drift.analyse_algorithm(_algorithm("skampi", [None, _line(40, 0)], truth=False),
                                          model="offset", tolerance_ns=1000)
    runs = [_run("virtual", "openmpi", 2, [offset_virtual, linear_virtual]),
            _run("real", "mpich", 2, [offset_real])]
    advice = drift.resync_advice(runs, tolerance_ns=1000)
    assert advice["virtual/openmpi/offset"] == {"interval_s": 0.056, "kind": "observed", "runs": ["np=2 skampi"]}
    assert (advice["virtual/openmpi/linear"]["interval_s"], advice["virtual/openmpi/linear"]["kind"]) == (18, "observed")
    assert (advice["real/mpich/offset"]["interval_s"], advice["real/mpich/offset"]["kind"]) == (100, "at least")


def test_the_command_is_the_users_sync_check():
    argv = drift.sync_check_argv(mpi="mpich", np_=4, clocksync=["skampi", "hca3"], check_at=CHECKS,
                                 timer_args=["--timer", "virtual"], timeout_s=600)
    assert argv[1:4] == ["-m", "mpimeter", "sync-check"]
    assert argv[argv.index("--check-at") + 1] == ",".join(f"{t:g}" for t in CHECKS)
    assert argv[argv.index("--clocksync") + 1] == "skampi,hca3" and argv[-1] == "--json"
    # within what the bench takes: at most 32 times, non-decreasing, at most 3600 s
    assert len(CHECKS) <= 32 and CHECKS == sorted(CHECKS) and CHECKS[-1] <= 3600


def test_the_figure_has_a_panel_per_clock(tmp_path):
    offset_virtual = drift.analyse_algorithm(_algorithm("skampi", [None, _line(30, 10)], truth=True),
                                             model="offset", tolerance_ns=1000)
    offset_real = drift.analyse_algorithm(_algorithm("skampi", [None, _line(0, 0)], truth=False),
                                          model="offset", tolerance_ns=1000)  # 7 ns, and 0 at rank 0
    runs = [{**_run("virtual", "openmpi", 2, [offset_virtual]), "virtual_skew_ppm": 10},
            _run("real", "mpich", 4, [offset_real])]
    path = tmp_path / "drift.png"
    drift.plot(runs, 1000, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_recorded_study_reanalysed_finds_the_holds():
    """Two runs recorded by bench/drift.py (Open MPI, 2 ranks, a machine with load ~8–20): on the
    virtual timer (skews ±10 ppm) skampi's offset model and jk's line, on the real one jk's
    residuals with one check 11 ms off (a preempted ping-pong: the shared clock cannot drift)."""
    doc = json.loads((DATA / "recorded.json").read_text())
    out = drift.reanalyse_doc(doc, tolerance_ns=1000)
    algs = {(r["clock"], a["name"]): a for r in out["runs"] for a in r["algorithms"]}
    skampi = algs[("virtual", "skampi")]
    assert skampi["basis"] == "true_error"
    assert skampi["hold"] == {"held_s": 0.1, "first_beyond_s": 0.18, "spikes_s": []}  # 985 ns, then 1792 ns
    assert skampi["drift"][0]["rate_ppm"] == pytest.approx(10, rel=1e-3)  # the virtual skew, learnt by no one
    jk_virtual = algs[("virtual", "jk")]
    assert jk_virtual["hold"] == {"held_s": 32, "first_beyond_s": 56, "spikes_s": []}
    jk_real = algs[("real", "jk")]
    assert jk_real["basis"] == "residual"
    assert jk_real["hold"] == {"held_s": 100, "first_beyond_s": None, "spikes_s": [3.2]}
    assert abs(jk_real["drift"][0]["rate_ppm"]) < 0.001  # Theil–Sen is not moved by the spike
    assert out["resync"]["virtual/openmpi/offset"]["interval_s"] == 0.1
    assert out["resync"]["real/openmpi/linear"] == {"interval_s": 100, "kind": "at least", "runs": ["np=2 jk"]}
    # a tighter tolerance is an offline re-reduction of the same checks
    tighter = drift.reanalyse_doc(doc, tolerance_ns=500)
    assert tighter["resync"]["virtual/openmpi/offset"]["interval_s"] == 0.032  # 311 ns, then 560 ns
