# SPDX-License-Identifier: BSD-3-Clause
"""Hardware counters in a LIKWID marker region on real ranks (docs/FORMAT.md, "counters.csv";
docs/GUIDE.md, "Counters"):

- a build without LIKWID refuses `--likwid` saying so (the main binary where LIKWID was not
  found; the test binary mpimeter-bench-nolikwid where it was);
- with LIKWID, a rank that likwid-perfctr -m did not start is refused saying what to do, while
  `--validate` (what mpimeter run asks before launching, without likwid-perfctr) accepts
  `--likwid` and refuses it with `--papi`;
- ranks started by likwid-perfctr -m -g CLOCK: where LIKWID's own likwid-perfctr can count on
  this machine, counters.csv has every event for exactly raw.csv's rows, each > 0, and meta.json
  says LIKWID counted; where it cannot (a VM without a virtual PMU), the launch is refused with
  one line naming LIKWID's failure and what to do, never rows of zeros.
Each refusal: exit 2 on every rank, nothing written.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from conftest import REPO, assert_refused, bench_path, launcher

BASE = ["--ops", "allreduce", "--sizes", "8", "--nrep", "5", "--procsync", "barrier"]


def _group() -> str:
    """The first performance group likwid-perfctr -a lists for this CPU (LIKWID's groups differ
    from one CPU to the next: Rocket Lake has no CLOCK); BRANCH without likwid-perfctr."""
    if shutil.which("likwid-perfctr") is None:
        return "BRANCH"
    out = subprocess.run(["likwid-perfctr", "-a"], capture_output=True, text=True, timeout=60).stdout
    rows = [ln.split()[0] for ln in out.splitlines()[2:] if ln.strip()]
    return rows[0] if rows else "BRANCH"


def _described(binary: Path) -> dict:
    out = subprocess.run([str(binary), "--describe"], capture_output=True, text=True, timeout=30, check=True)
    return json.loads(out.stdout)


def _tests_binary(lib: str, name: str) -> Path:
    return Path(os.environ.get("MPIMETER_BENCH_DIR") or REPO / "build") / lib / "tests" / name


def _marker_environment(events: str, marker_file: Path) -> dict[str, str]:
    """What likwid-perfctr -m hands to the program it starts (LIKWID's marker API reads it)."""
    return {**os.environ, "LIKWID_EVENTS": events, "LIKWID_THREADS": "0", "LIKWID_MODE": "1",
            "LIKWID_FILEPATH": str(marker_file)}


def _under_likwid_perfctr(lib: str, group: str, args: list, timeout: float = 300) -> subprocess.CompletedProcess:
    """Two ranks, each started by its own likwid-perfctr -m -g GROUP pinned to the CPU of its
    local rank (what likwid-mpirun does on one host)."""
    local_rank = "${OMPI_COMM_WORLD_LOCAL_RANK:-$MPI_LOCALRANKID}"
    wrapper = f'exec likwid-perfctr -m -g {group} -C "{local_rank}" "$@"'
    cmd = launcher(lib, 2) + ["sh", "-c", wrapper, "sh", str(bench_path(lib))] + [str(a) for a in args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _likwid_counts_here(group: str) -> tuple[bool, str]:
    """LIKWID's own verdict: can likwid-perfctr count GROUP on CPU 0 here? (and what it said)"""
    proc = subprocess.run(["likwid-perfctr", "-C", "0", "-g", group, "true"], capture_output=True, text=True,
                          timeout=60)
    return proc.returncode == 0 and "ERROR" not in proc.stderr, (proc.stdout + proc.stderr).strip()


def test_likwid_refused_in_a_build_without_it(lib, tmp_path):
    binary = bench_path(lib)
    if _described(binary)["tool"]["likwid"]:
        binary = _tests_binary(lib, "mpimeter-bench-nolikwid")
        assert binary.exists(), f"{binary}: CMake builds it beside every build with LIKWID"
    assert _described(binary)["tool"]["likwid"] is False
    out = tmp_path / "never"
    proc = subprocess.run(launcher(lib, 2) + [str(binary), *BASE, "--likwid", "BRANCH", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "built without LIKWID" in proc.stderr and not out.exists(), proc.stderr
    assert sum(ln.startswith("mpimeter-bench:") for ln in proc.stderr.splitlines()) == 1, proc.stderr


def test_likwid_needs_likwid_perfctr(lib, tmp_path):
    if not _described(bench_path(lib))["tool"]["likwid"]:
        pytest.skip("this build has no LIKWID (configured without -DMM_WITH_LIKWID=ON, or likwid.h and liblikwid "
                    "were not found): "
                    "test_likwid_refused_in_a_build_without_it covers it")
    assert_refused(lib, BASE + ["--likwid", "BRANCH"], "was not started by likwid-perfctr -m", tmp_path)
    # mpimeter run validates the options without likwid-perfctr: accepted there, but not with --papi
    validate = [str(bench_path(lib)), "--validate", "2", *BASE, "--likwid", "BRANCH"]
    proc = subprocess.run(validate, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and json.loads(proc.stdout)["config"]["likwid"] == "BRANCH", proc.stderr
    proc = subprocess.run(validate + ["--papi", "PAPI_TOT_CYC"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--likwid with --papi" in proc.stderr, proc.stderr


def test_likwid_counts_or_says_why_not(lib, tmp_path):
    if not _described(bench_path(lib))["tool"]["likwid"]:
        pytest.skip("this build has no LIKWID (likwid.h and liblikwid were not found when it was built)")
    if shutil.which("likwid-perfctr") is None:
        pytest.skip("likwid-perfctr is not installed (Debian: likwid): nothing starts the ranks under it")
    group = _group()
    counts, said = _likwid_counts_here(group)
    out = tmp_path / "likwid"
    if not counts:
        # LIKWID itself cannot count here: started as likwid-perfctr -m starts a program, each
        # rank says so in one line, with what to do; no folder, no zeros
        env = _marker_environment(group, tmp_path / "marker.txt")
        cmd = launcher(lib, 2) + [str(bench_path(lib)), *BASE, "--likwid", group, "--out", str(out)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
        assert proc.returncode == 2, proc.stderr
        assert "LIKWID's marker API did not start in this rank" in proc.stderr, proc.stderr
        assert f"likwid-perfctr -C 0 -g {group} true" in proc.stderr and not out.exists()
        assert sum(ln.startswith("mpimeter-bench:") for ln in proc.stderr.splitlines()) == 1, proc.stderr
        print(f"LIKWID cannot count here; likwid-perfctr said: {said[-300:]}")
        return
    proc = _under_likwid_perfctr(lib, group, BASE + ["--likwid", group, "--out", out])
    assert proc.returncode == 0, proc.stderr
    meta = json.loads((out / "meta.json").read_text())
    raw, ctr = pd.read_csv(out / "raw.csv"), pd.read_csv(out / "counters.csv")
    metrics = [m["name"] for m in meta["counters"]["metrics"]]
    assert meta["counters"]["likwid"] == group and meta["config"]["likwid"] == group
    assert metrics and all(m["source"] == "likwid" for m in meta["counters"]["metrics"])
    keys = ["test", "rank", "rep"]
    for name in metrics:
        mine = ctr[ctr.metric == name]
        assert len(mine) == len(raw) and set(map(tuple, mine[keys].to_numpy().tolist())) == \
            set(map(tuple, raw[keys].to_numpy().tolist()))
    assert ctr["value"].notna().all(), "a start or stop LIKWID refused"
    # every repetition's region counted something (instructions retired, where the group has
    # the fixed counter): counts, not zeros standing in for them
    fixed = [name for name in metrics if name.endswith(":FIXC0")]
    counted = ctr[ctr.metric.isin(fixed)] if fixed else ctr.groupby(keys, as_index=False)["value"].sum()
    assert len(counted) and (counted["value"] > 0).all(), counted.describe()
    assert "Region mpimeter" in proc.stdout  # likwid-perfctr's own table of the region
