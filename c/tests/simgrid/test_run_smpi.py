# SPDX-License-Identifier: BSD-3-Clause
"""`mpimeter run --mpi smpi` on the SimGrid build: two campaigns of one seed simulate the same
times, byte for byte, and `mpimeter analyze` reads them (docs/GUIDE.md, "Simulated clusters").

Small on purpose (4 ranks of the shipped 128-host cluster, 2 launches, 2 sizes, 20 repetitions).
Skipped, with the reason, when libsimgrid-dev is missing or the SimGrid build was not made (the
bench dir is $MPIMETER_BENCH_DIR, else build/: `make test-simulate` builds build/smpi first).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mpimeter.campaign import simulation
from mpimeter.io.bench_binaries import SIMULATED_LIBRARY, bench_binary, default_bench_dir

RUN = ["--mpi", "smpi", "--np", "4", "--launches", "2", "--ops", "allreduce,bcast", "--sizes", "8,1024",
       "--nrep", "20", "--no-analyze"]
TIMEOUT_S = 600  # a bound that ends a stuck test, not a speed check


def mpimeter(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mpimeter", *args], capture_output=True, text=True,
                          timeout=TIMEOUT_S, cwd=cwd, stdin=subprocess.DEVNULL)


def smpi_missing() -> str | None:
    if shutil.which("smpirun") is None:
        return "libsimgrid-dev is not installed (smpirun not found; as root: apt-get install libsimgrid-dev)"
    binary = bench_binary(default_bench_dir(), SIMULATED_LIBRARY)
    if not binary.exists():
        return f"{binary} is missing: run `make build-smpi`"
    return None


@pytest.fixture(scope="module")
def two_campaigns(tmp_path_factory):
    why = smpi_missing()
    if why:
        pytest.skip(why)
    tmp = tmp_path_factory.mktemp("smpi")
    for name in ("a", "b"):
        done = mpimeter("run", *RUN, "--seed", "11", "--out", name, cwd=tmp)
        assert done.returncode == 0, done.stdout + done.stderr
    return tmp / "a", tmp / "b"


def launch_folders(campaign: Path) -> list[Path]:
    return sorted((campaign / "launches").iterdir())


def test_one_seed_gives_identical_raw_data(two_campaigns):
    a, b = two_campaigns
    assert [p.name for p in launch_folders(a)] == ["000", "001"]
    for fa, fb in zip(launch_folders(a), launch_folders(b)):
        raw_a, raw_b = (fa / "raw.csv").read_bytes(), (fb / "raw.csv").read_bytes()
        assert raw_a.count(b"\n") > 4 * 20 * 2 * 2  # a row per rank per repetition of every test
        assert raw_a == raw_b, f"{fa.name}: raw.csv differs between two campaigns of seed 11"
    # the two launches of one campaign have their own seeds: their simulated times differ
    assert (launch_folders(a)[0] / "raw.csv").read_bytes() != (launch_folders(a)[1] / "raw.csv").read_bytes()


def test_the_records_name_the_simulation(two_campaigns):
    a, _ = two_campaigns
    doc = json.loads((a / "campaign.json").read_text())
    platform = simulation.DEFAULT_PLATFORM
    sha = hashlib.sha256(platform.read_bytes()).hexdigest()
    assert doc["simulation"]["platform"] == str(platform) and doc["simulation"]["sha256"] == sha
    assert doc["simulation"]["simgrid_version"].startswith("SimGrid version")
    assert doc["seed"] == 11
    for rec in doc["launches"]:
        meta = json.loads((a / rec["folder"] / "meta.json").read_text())
        assert meta["mpi"]["library"] == "smpi"
        assert meta["mpi"]["library_version"].startswith("SMPI Version")
        assert meta["config"]["seed"] == rec["seed"]
        env = meta["environment"]
        assert env.get(simulation.PLATFORM_ENV) == str(platform)
        assert env.get(simulation.PLATFORM_SHA256_ENV) == sha


def test_analyze_reads_a_simulated_campaign(two_campaigns):
    a, _ = two_campaigns
    done = mpimeter("analyze", str(a), "--format", "json", cwd=a.parent)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    text = json.dumps(doc)
    assert "allreduce" in text and "bcast" in text
    # this machine's CPU time over a simulated duration measures nothing: no machine-load warning
    assert "machine-load" not in text


def test_the_binary_records_no_machine_load_in_simulated_time(two_campaigns):
    a, _ = two_campaigns
    for folder in launch_folders(a):
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["load"]["other_cpu_s"] is None
        assert all(test.get("other_cpu") is None for test in meta["tests"])
