# SPDX-License-Identifier: BSD-3-Clause
"""issue 26: runaways, impossible values and tracebacks.

- `sync-check --np 65537` (and one rank above `run`'s per-core bound) is refused before mpirun;
- `import imb /dev/zero` (and a FIFO with no writer) ends quickly with exit 2;
- `store query 'select * from range(100000000)'` prints --limit rows as they come and says the
  limit cut; the default is in --help;
- readers refuse zero-length repetitions, 11-day durations, an NBC compute time of 0 and a
  counter value of 1e30, naming file, line and the allowed range;
- an IMB value of 1e308, an OSU value of 1e400, and `reproducibility` with a 5000-character path
  are one line, exit 2, no traceback."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from data.synth import write_launch
from data.synth_counters import add_counters, follows
from data.testkit import golden_copy

from mpimeter.campaign import limits
from mpimeter.cli import main
from mpimeter.io import counters as _counters
from mpimeter.io import rowcheck
from mpimeter.io.counters import read_counters
from mpimeter.io.errors import InputError
from mpimeter.io.meta import read_meta

PEERS = Path(__file__).parent / "data" / "peers"


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line(result) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


# --- runaways ------------------------------------------------------------------------------------

def test_sync_check_bounds_its_ranks_as_run_does(tmp_path, monkeypatch):
    log = tmp_path / "launched"
    fake = tmp_path / "mpirun-stand-in"
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\n")
    fake.chmod(0o755)
    for np_ in (65537, limits.max_local_np() + 1):
        line = one_line(invoke("sync-check", "--np", np_))
        assert f"--np {np_}" in line and "at most" in line, line
    line = one_line(invoke("sync-check", "--np", 65537, "--launcher", f"{fake} -np {{np}} {{cmd}}"))
    assert f"at most {limits.MAX_NP}" in line
    assert not log.exists()


def test_import_of_a_device_or_a_fifo_ends_with_exit_2(tmp_path):
    start = time.monotonic()
    line = one_line(invoke("import", "imb", "/dev/zero", "--out", tmp_path / "o"))
    assert "/dev/zero" in line and "at most 64 MiB" in line
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    line = one_line(invoke("import", "imb", fifo, "--out", tmp_path / "o"))
    assert "fifo" in line
    assert not (tmp_path / "o").exists() and time.monotonic() - start < 120


def test_store_query_streams_with_a_row_limit(tmp_path):
    store = tmp_path / "results.duckdb"
    added = invoke("store", "add", golden_copy(tmp_path, "campaign_a"), "--store", store, "--no-report")
    assert added.exit_code == 0, added.output
    assert "[default: 10000;" in invoke("store", "query", "--help").output
    r = invoke("store", "query", "select * from range(100000000)", "--store", store, "--format", "csv", "--limit", 5)
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines() == ["range", "0", "1", "2", "3", "4"]
    assert "more rows than --limit 5" in r.stderr
    r = invoke("store", "query", "select * from range(3)", "--store", store, "--format", "json")
    assert r.exit_code == 0 and json.loads(r.stdout) == {"columns": ["range"], "rows": [{"range": 0}, {"range": 1},
                                                                                       {"range": 2}],
                                                         "truncated": False}
    assert r.stderr == ""


# --- impossible values -------------------------------------------------------------------------

def edit_row(folder: Path, line: int, change) -> Path:
    path = folder / "raw.csv"
    lines = path.read_text().splitlines(keepends=True)
    fields = lines[line - 1].rstrip("\n").split(",")
    lines[line - 1] = ",".join(change(fields)) + "\n"
    path.write_text("".join(lines))
    return path


DAY_NS = 86_400 * 10**9


@pytest.mark.parametrize("change, words", [
    (lambda f: f[:6] + [f[5]] + f[7:8] + [f[5], f[5]], "end_ns equals start_ns"),
    (lambda f: f[:6] + [str(int(f[5]) + 11 * DAY_NS)] + f[7:8] + [f[5], str(int(f[5]) + 11 * DAY_NS)],
     "beyond the plausible maximum"),
])
def test_impossible_run_times_are_refused_with_file_line_and_range(tmp_path, change, words):
    campaign = golden_copy(tmp_path, "campaign_a")
    edit_row(campaign / "launches" / "000", 3, change)
    r = invoke("analyze", campaign, "--no-cache")
    line = one_line(r)
    assert "launches/000/raw.csv:3:" in line and words in line and "allowed" in line, line


def test_the_plausible_maximum_is_the_longest_launch():
    assert rowcheck.MAX_PLAUSIBLE_NS == limits.MAX_LAUNCH_TIMEOUT_S * 10**9


def test_an_nbc_compute_time_of_zero_is_refused(tmp_path):
    from data.synth import RAW_HEADER  # noqa: F401  (the v1 header; components follow)

    launch = write_launch(tmp_path / "l", seed=1, nrep=4, schema=2)
    meta = read_meta(launch / "meta.json")

    class NbcMeta:  # the launch's meta, with its first operation a nonblocking collective
        tests = meta.tests
        nprocs = meta.nprocs

        @staticmethod
        def kind(op):
            return "nonblocking" if op == meta.tests[0].op else meta.kind(op)

    import pyarrow as pa

    n = 3
    raw = pa.table({"test": pa.array([0] * n), "end_ns": pa.array([500] * n), "start_ns": pa.array([0] * n),
                    "init_ns": pa.array([10] * n), "test_ns": pa.array([5] * n), "wait_ns": pa.array([20] * n),
                    "compute_ns": pa.array([160, 0, 160]), "blocking_ns": pa.array([None] * n, pa.int64())})
    with pytest.raises(InputError) as exc:
        rowcheck.check_components(tmp_path / "raw.csv", raw, NbcMeta)
    assert exc.value.line == 3 and "compute_ns is 0" in str(exc.value) and "allowed: > 0 ns" in str(exc.value)


def test_a_counter_beyond_its_type_is_refused(tmp_path):
    folder = add_counters(write_launch(tmp_path / "launches" / "000", seed=3, nrep=10, schema=2),
                          {"bytes_sent": follows})
    path = folder / "counters.csv"
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = lines[1].rsplit(",", 1)[0] + ",1e30\n"
    path.write_text("".join(lines))
    with pytest.raises(InputError) as exc:
        read_counters(folder, read_meta(folder / "meta.json"), cache=False)
    assert exc.value.line == 2 and "beyond its type" in str(exc.value) and "2^63" in str(exc.value)
    assert _counters.INTEGER_LIMIT == 2.0**63


# --- no traceback ------------------------------------------------------------------------------

def test_huge_peer_values_are_one_line(tmp_path):
    imb = (PEERS / "imb-pingpong-allreduce-bcast.txt").read_text()
    row = "            8         1000         0.18        43.82"
    assert row in imb
    (tmp_path / "imb.txt").write_text(imb.replace(row, "            8         1000         1e308        43.82"))
    line = one_line(invoke("import", "imb", tmp_path / "imb.txt", "--out", tmp_path / "o1"))
    assert "1e308" in line and "2^62" in line and "imb.txt:" in line
    osu = (PEERS / "osu-latency.txt").read_text()
    (tmp_path / "osu.txt").write_text(osu.replace("8                       0.45", "8                       1e400"))
    line = one_line(invoke("import", "osu", tmp_path / "osu.txt", "--out", tmp_path / "o2"))
    assert "1e400" in line and "osu.txt:" in line
    assert not (tmp_path / "o1").exists() and not (tmp_path / "o2").exists()


def test_reproducibility_with_a_5000_character_path_is_one_line(tmp_path):
    long = "a" * 5000
    line = one_line(invoke("reproducibility", long, tmp_path))
    assert "mpimeter reproducibility: error:" in line and len(line) < 400
    line = one_line(invoke("reproducibility", "--trials", 2, "--out", tmp_path / long))
    assert "mpimeter reproducibility: error:" in line and "too long" in line
