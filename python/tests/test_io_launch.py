# SPDX-License-Identifier: BSD-3-Clause
"""meta.json checks, effective status, consistency of raw.csv with meta.json, the clock."""

import json
import os
import socket
from pathlib import Path

import numpy as np
import pytest
from data.synth import write_launch
from data.testkit import golden_copy

from mpimeter.analysis.clock import choose_clock
from mpimeter.io import clock
from mpimeter.io.errors import InputError
from mpimeter.io.launch import effective_status, read_launch
from mpimeter.io.meta import parse_meta, read_meta


def edit_meta(folder, **kw):
    meta = json.loads((folder / "meta.json").read_text())
    meta.update(kw)
    (folder / "meta.json").write_text(json.dumps(meta))
    return meta


def test_bad_json_names_file_and_line(tmp_path):
    f = golden_copy(tmp_path, "bad_meta_json") / "launches" / "000"
    with pytest.raises(InputError) as exc:
        read_meta(f / "meta.json")
    assert exc.value.path.name == "meta.json" and exc.value.line and "does not parse as JSON" in exc.value.what


def test_unknown_or_missing_schema_version(tmp_path):
    f = golden_copy(tmp_path, "unknown_schema") / "launches" / "000"
    with pytest.raises(InputError, match="schema_version 99"):
        read_meta(f / "meta.json")
    meta = json.loads((f / "meta.json").read_text())
    del meta["schema_version"]
    (f / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(InputError, match="has no schema_version"):
        read_meta(f / "meta.json")


@pytest.mark.parametrize("change,what", [
    ({"status": "paused"}, "status is 'paused'; it must be one of running, complete, incomplete, failed"),
    ({"tests": {"0": 1}}, "tests is an object; it must be an array"),
    ({"tests": [{"test": 0, "op": "bcast", "size": "8", "status": "complete"}]},
     "tests[0].size is a string ('8'); it must be an integer ≥ 0"),
    ({"nprocs": True}, "nprocs is a boolean (True); it must be an integer"),
])
def test_meta_keys_are_checked(tmp_path, change, what):
    f = write_launch(tmp_path / "l", seed=1)
    edit_meta(f, **change)
    with pytest.raises(InputError) as exc:
        read_meta(f / "meta.json")
    assert what in str(exc.value)


def test_running_launch_whose_pid_is_gone_is_incomplete():
    here = socket.gethostname()

    def meta(**kw):
        return parse_meta({"schema_version": 2, "nprocs": 1, "tests": [], **kw}, Path("meta.json"))

    dead = meta(status="running", pid=2**22 + 4321, host_of_rank0=here)
    assert effective_status(dead)[0] == "incomplete"
    alive = meta(status="running", pid=os.getpid(), host_of_rank0=here)
    assert effective_status(alive)[0] == "running"
    elsewhere = meta(status="running", pid=1, host_of_rank0="some-other-node")
    assert effective_status(elsewhere)[0] == "running"
    assert effective_status(meta(status="complete")) == ("complete", "")


def test_running_launch_on_this_host_reads_as_incomplete_with_its_finished_tests(tmp_path):
    f = write_launch(tmp_path / "l", seed=2, finished=2, status="running")
    edit_meta(f, host_of_rank0=socket.gethostname())
    d = read_launch(f)
    assert d.status == "incomplete" and d.finished_tests == (0, 1)
    assert set(d.raw["test"].to_pylist()) == {0, 1}
    w = [w for w in d.warnings if w.code == "incomplete-launch"]
    assert w and "2 of 4 tests" in w[0].message and "gone" in w[0].message


def test_rows_of_tests_not_marked_complete_are_dropped_with_a_warning(tmp_path):
    f = write_launch(tmp_path / "l", seed=3)
    meta = json.loads((f / "meta.json").read_text())
    meta["tests"][3]["status"] = "running"
    meta["status"] = "incomplete"
    (f / "meta.json").write_text(json.dumps(meta))
    d = read_launch(f)
    assert 3 not in set(d.raw["test"].to_pylist())
    assert any(w.code == "unfinished-test-rows" for w in d.warnings)


def test_raw_must_agree_with_meta(tmp_path):
    with pytest.raises(InputError) as exc:
        read_launch(golden_copy(tmp_path, "raw_meta_mismatch") / "launches" / "000")
    assert exc.value.path.name == "raw.csv" and exc.value.line == 4 and "op differs" in exc.value.what


@pytest.mark.parametrize("field,value,what", [
    (7, "2", "valid must be 0 or 1"),
    (6, "1", "end_ns is before start_ns"),
    (3, "5", "rank is not in -1 … 1"),
    (9, "", "gstart_ns and gend_ns must both be given"),
    (0, "9", "test is not one of the 4 tests"),
])
def test_raw_values_are_checked_with_their_line(tmp_path, field, value, what):
    f = write_launch(tmp_path / "l", seed=4, nrep=5)
    lines = (f / "raw.csv").read_text().splitlines(keepends=True)
    parts = lines[5].rstrip("\n").split(",")
    parts[field] = value
    lines[5] = ",".join(parts) + "\n"
    (f / "raw.csv").write_text("".join(lines))
    with pytest.raises(InputError) as exc:
        read_launch(f, cache=False)
    assert exc.value.line == 6 and what in exc.value.what


def test_missing_raw_csv_is_bad_input(tmp_path):
    with pytest.raises(InputError, match="raw.csv: is missing"):
        read_launch(golden_copy(tmp_path, "missing_raw") / "launches" / "000")


def test_piecewise_linear_offsets_with_constant_extrapolation():
    pts = (np.array([100.0, 200.0, 400.0]), np.array([10.0, 20.0, 0.0]))
    local = np.array([0, 100, 150, 200, 300, 400, 1000])
    assert clock.global_time(local, pts).tolist() == [10, 110, 165, 220, 310, 400, 1000]


def test_clock_choice_follows_format_md(tmp_path):
    def clock(folder):
        return choose_clock(read_launch(folder))[:2]

    assert clock(write_launch(tmp_path / "a", seed=1))[0] == "global-online"
    assert clock(write_launch(tmp_path / "b", seed=1, syncs=3))[0] == "global-resync"
    assert clock(write_launch(tmp_path / "c", seed=1, clocksync="none", procsync="barrier"))[0] == "local"
    # no clock sync but a window process sync: global (it had a global clock) — here the online one
    assert clock(write_launch(tmp_path / "d", seed=1, clocksync="none", procsync="window"))[0] == "global-online"
    name, reason = clock(write_launch(tmp_path / "e", seed=1, syncs=3, raw_mode="reduced"))
    assert name == "global-online" and "reduced" in reason


def test_resync_without_model_rows_for_a_rank_falls_back_to_online(tmp_path):
    f = write_launch(tmp_path / "l", seed=5, syncs=3)
    lines = [ln for ln in (f / "sync.csv").read_text().splitlines(keepends=True)
             if not (ln.startswith("1,") and ",model," in ln)]
    (f / "sync.csv").write_text("".join(lines))
    d = read_launch(f)
    assert not d.resynced and "no model rows for rank 1" in d.resync_error
    clock, _, warnings = choose_clock(d)
    assert clock == "global-online" and [w.code for w in warnings] == ["resync-clock"]
