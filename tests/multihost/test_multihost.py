# SPDX-License-Identifier: BSD-3-Clause
"""Open MPI across network namespaces over TCP: a real campaign whose ranks
live on different "hosts", with clock sync and window starts over the network, analysed on the
launching side; a ping-pong across hosts and within one; the bed always deleted.

No timing thresholds: what is asserted is where the ranks ran, that launches complete, that
the residuals are measured and finite, that valid repetitions exist and the analysis has rows."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import NP, SLOTS, WINDOW_ARGS, running_bed
from netns_bed import BedUnavailable

OPS = ["allreduce", "bcast"]
SIZES = [8, 1024]
LAUNCHES = 2


def run(argv: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, (f"{argv} exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
                                  f"stderr:\n{proc.stderr}")
    return proc


def expected_hosts(bed, slots: list[int]) -> list[str]:
    """The host of each rank: Open MPI fills a host's slots before the next host's."""
    return [host.hostname for host, n in zip(bed.hosts, slots) for _ in range(n)]


def bench_launch(bed, hostfile: Path, bench: Path, out: Path, np: int, args: list[str]) -> dict:
    run(bed.launch_argv(hostfile, np, [str(bench), *args, "--out", str(out)]), bed.env())
    return json.loads((out / "meta.json").read_text())


def assert_residuals_finite(meta: dict, np: int) -> None:
    residual = meta["clock_sync"]["residual_start"]
    assert residual is not None, "no residual measured after the clock sync"
    assert sorted(residual["ranks"]) == list(range(1, np)), residual
    assert all(math.isfinite(r) for r in residual["residual_ns"]), residual
    assert math.isfinite(residual["max_abs_ns"]), residual


def valid_repetitions(raw: pd.DataFrame) -> int:
    """Repetitions valid on every rank (what the analysis uses)."""
    return int(raw.groupby(["test", "rep"])["valid"].min().sum())


def test_every_host_has_its_own_name(bed, hostfile):
    proc = run(bed.launch_argv(hostfile, NP, ["hostname"]), bed.env())
    assert sorted(proc.stdout.split()) == sorted(expected_hosts(bed, SLOTS))


@pytest.fixture(scope="module")
def campaign(bed, hostfile, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("campaign") / "across"
    run([sys.executable, "-m", "mpimeter", "run", "--mpi", "openmpi", "--np", str(NP),
         "--launcher", bed.launcher_template(hostfile), "--launches", str(LAUNCHES),
         "--ops", ",".join(OPS), "--sizes", ",".join(map(str, SIZES)), "--nrep", "50",
         "--clocksync", "hca3", *WINDOW_ARGS, "--no-analyze", "--out", str(out)],
        bed.env(), timeout=300)
    return out


def test_campaign_runs_across_hosts(bed, campaign):
    state = json.loads((campaign / "campaign.json").read_text())
    assert state["status"] == "complete", state
    folders = sorted(p.parent for p in campaign.glob("launches/*/meta.json"))
    assert len(folders) == LAUNCHES, f"launch folders in {campaign}: {folders}"
    valid = 0
    for folder in folders:
        meta = json.loads((folder / "meta.json").read_text())
        assert meta["status"] == "complete"
        hosts = [r["host"] for r in sorted(meta["ranks"], key=lambda r: r["rank"])]
        assert hosts == expected_hosts(bed, SLOTS)
        assert len(set(hosts)) == len(bed.hosts) >= 2
        assert meta["clock_sync"]["method"] == "hca3"
        assert_residuals_finite(meta, NP)
        # the hosts are separate nodes to MPI but share this machine's CPUs: the binary groups
        # ranks by kernel (boot id), so it knows when they are more than the CPUs
        oversubscribed = any(c["code"] == "oversubscribed" for c in meta["conditions"])
        assert oversubscribed == (NP > len(os.sched_getaffinity(0))), meta["conditions"]
        raw = pd.read_csv(folder / "raw.csv")
        assert set(raw["rank"]) == set(range(NP))
        assert set(zip(raw["op"], raw["size"])) == {(o, s) for o in OPS for s in SIZES}
        valid += valid_repetitions(raw)
    assert valid > 0, "no repetition was valid on every rank in the whole campaign"


def test_analyze_reads_the_campaign(campaign):
    proc = run([sys.executable, "-m", "mpimeter", "analyze", str(campaign), "--format", "json"],
               dict(os.environ))
    rows = json.loads(proc.stdout)["rows"]
    assert sorted((r["op"], r["size"]) for r in rows) == sorted((o, s) for o in OPS for s in SIZES)
    assert all(r["repetitions"] == LAUNCHES * 50 for r in rows), rows
    assert any(r["median_ns"] is not None for r in rows), "analyze found no valid repetition"


def test_skampi_clock_sync_over_tcp(bed, hostfile, bench, tmp_path):
    meta = bench_launch(bed, hostfile, bench, tmp_path / "skampi", NP,
                        ["--ops", "bcast", "--sizes", "8", "--nrep", "50",
                         "--clocksync", "skampi", *WINDOW_ARGS])
    assert meta["status"] == "complete"
    assert meta["clock_sync"]["method"] == "skampi"
    assert_residuals_finite(meta, NP)
    assert len({r["host"] for r in meta["ranks"]}) == len(bed.hosts)


@pytest.mark.parametrize("across", [True, False], ids=["across-hosts", "within-one-host"])
def test_pingpong(bed, hostfile, hostfile_shared_first, bench, tmp_path, across):
    out = tmp_path / "pingpong"
    meta = bench_launch(bed, hostfile if across else hostfile_shared_first, bench, out, 2,
                        ["--ops", "pingpong-send-recv", "--datatype", "byte", "--sizes", "1",
                         "--nrep", "200", "--pair", "0,1",
                         # a ping-pong times itself: no global clock, and no rank spinning
                         # through a window on a CPU its peer needs
                         "--clocksync", "none", "--procsync", "barrier"])
    assert meta["status"] == "complete"
    assert meta["probes"]["pingpong_pair"]["ranks"] == [0, 1]
    hosts = {r["rank"]: r["host"] for r in meta["ranks"]}
    assert hosts[0] == bed.hosts[0].hostname
    assert hosts[1] == (bed.hosts[1] if across else bed.hosts[0]).hostname
    raw = pd.read_csv(out / "raw.csv")
    first = raw[(raw["rank"] == 0) & (raw["valid"] == 1)]
    assert len(first) > 0, "no valid ping-pong repetition"
    one_way_us = ((first["end_ns"] - first["start_ns"]) / 2).median() / 1e3
    print(f"ping-pong 1 B {'across hosts' if across else 'within one host'} (TCP): "
          f"one-way {one_way_us:.1f} µs (median of {len(first)})")


def test_bed_is_deleted_even_when_its_user_fails():
    made = []
    try:
        with pytest.raises(RuntimeError, match="the user failed"):
            with running_bed(2, f"{os.getpid()}-cleanup") as bed:
                made.append(bed)
                assert bed.existing() == [bed.switch] + [h.namespace for h in bed.hosts]
                raise RuntimeError("the user failed")
    except BedUnavailable as exc:
        pytest.skip(str(exc))
    assert made and made[0].existing() == []
