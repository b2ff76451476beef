# SPDX-License-Identifier: BSD-3-Clause
"""A real campaign: 3 launches × 2 ranks with both MPI libraries, through the real launchers
and the real mpimeter-bench (built by `make build`, which `make test` runs first). Skipped with a
reason when a binary is missing (running pytest by hand before building)."""

import json
import subprocess
import sys

from data.testkit import LIBS, missing_bench

from mpimeter.io import rawformat

BENCH_DIR, missing, pytestmark = missing_bench()


def test_three_launches_of_two_ranks_with_both_libraries(tmp_path):
    out = tmp_path / "libs"
    ops, sizes, nrep = ["allreduce", "bcast"], [8, 1024], 20
    done = subprocess.run(
        [sys.executable, "-m", "mpimeter", "run", "--np", "2", "--launches", "3",
         "--mpi", "openmpi,mpich", "--ops", ",".join(ops), "--sizes", ",".join(map(str, sizes)),
         "--nrep", str(nrep), "--seed", "2026", "--out", str(out), "--no-analyze"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    disk = json.loads((out / "campaign.json").read_text())
    launches = disk["launches"]
    assert len(launches) == 6 and all(x["status"] == "complete" for x in launches), launches
    for r in range(3):  # interleaved: every round runs each library once
        assert sorted(x["alternative"] for x in launches[2 * r: 2 * r + 2]) == sorted(LIBS)
    assert len({x["seed"] for x in launches}) == 6
    for x in launches:
        folder = out / x["folder"]
        assert x["folder"] == f"{x['alternative']}/launches/{x['index']:03d}"
        assert x["exit_code"] == 0 and x["duration_s"] > 0
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["status"] == "complete"
        assert meta["nprocs"] == 2
        assert meta["config"]["seed"] == x["seed"]
        assert meta["mpi"]["library"] == x["alternative"]
        lines = (folder / "raw.csv").read_text().strip().splitlines()
        assert lines[0] == rawformat.HEADER
        assert len(lines) - 1 == 2 * len(ops) * len(sizes) * nrep
        assert {line.split(",")[1] for line in lines[1:]} == set(ops)
    expected = "mpirun.openmpi" if disk["alternatives"][0]["name"] == "openmpi" else "mpiexec.mpich"
    assert disk["alternatives"][0]["launch_template"].startswith(expected)


def test_launches_auto_adds_launches_only_for_open_pairs(tmp_path):
    """--launches auto with the real binary (Open MPI, 2 ranks) and --nrep auto: at least the
    minimum of launches, an added launch runs only the open pairs, campaign.json says where each
    pair stopped and every launch says how many repetitions its rule gave each test."""
    out = tmp_path / "auto"
    done = subprocess.run(
        [sys.executable, "-m", "mpimeter", "run", "--np", "2", "--mpi", "openmpi", "--launches", "auto",
         "--launches-min", "6", "--launches-max", "7", "--launches-precision", "0.5",
         "--ops", "allreduce,bcast", "--sizes", "8,1024", "--nrep", "auto", "--nrep-max", "100",
         "--seed", "14", "--out", str(out), "--no-analyze"],
        capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    disk = json.loads((out / "campaign.json").read_text())
    rule, launches = disk["adaptive_launches"], disk["launches"]
    assert (rule["min"], rule["max"], rule["precision"]) == (6, 7, 0.5)
    assert 6 <= len(launches) <= 7 and all(x["status"] == "complete" for x in launches)
    assert {(p["op"], p["size"]) for p in rule["pairs"]} == {(o, s) for o in ("allreduce", "bcast") for s in (8, 1024)}
    for p in rule["pairs"]:
        assert p["status"] in ("precision", "max")
        # a pair stops precise at the minimum, or precise or at the maximum after the added launch
        # (judged pooled, or per state when the analysis explains the launches' groups)
        assert p["launches"] == 7 if p["status"] == "max" else p["launches"] in (6, 7)
        assert p["status"] == "max" or p["precision"] <= 0.5 or p.get("states")
    open_after_6 = {(p["op"], p["size"]) for p in rule["pairs"] if p["launches"] == 7}
    assert (len(launches) == 7) == bool(open_after_6)
    if len(launches) == 7:  # the added launch ran the open pairs' ops and sizes only
        tests = launches[6]["tests"]
        assert set(tests["ops"]) == {o for o, _ in open_after_6} and set(tests["sizes"]) == {s for _, s in open_after_6}
        meta = json.loads((out / launches[6]["folder"] / "meta.json").read_text())
        assert {(t["op"], t["size"]) for t in meta["tests"]} == {(o, s) for o in tests["ops"] for s in tests["sizes"]}
    for x in launches:
        meta = json.loads((out / x["folder"] / "meta.json").read_text())
        assert all(t["adaptive"]["rule"] == "ci" and 30 <= t["nrep"] <= 100 for t in meta["tests"])
